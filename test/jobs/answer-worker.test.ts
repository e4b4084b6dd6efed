// The worker's rules on real PostgreSQL, through the playground's queue (its
// sink needs no platform): a question whose job a worker fetched and never
// started is answered by the next worker; a question whose every attempt
// fails ends as 'failed' and its asker is told so, not left waiting; a Slack
// placeholder whose receiver died before recording it is found by its
// metadata and becomes the answer.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DataDesk } from '../../src/agents/desk.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { answerQueue } from '../../src/jobs/answer-job.js';
import type { Jobs } from '../../src/jobs/runtime.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { testJobs } from '../helpers/jobs.js';
import { pollUntil } from '../helpers/wait.js';
import { WebClient } from '@slack/web-api';
import { orphanedStream, PLACEHOLDER_EVENT, placeholderFor } from '../../src/channels/slack/placeholder.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { StreamSupport } from '../../src/channels/slack/answer-stream.js';
import type { Deliveries } from '../../src/jobs/deliveries.js';

let db: TestDatabase;
let slack: FakeSlack;
const runtimes: Jobs[] = [];
const question = (key: string, text = 'How many thefts were reported in 2019?') => ({
  key,
  message: { platform: 'web' as const, threadId: `web:${key}`, channel: 'playground', text },
  action: { type: 'answer' as const },
  reply: { platform: 'web' as const },
});
const row = async (key: string) => (await db.pool.query('SELECT status, attempts, answer FROM deliveries WHERE key = $1', [key])).rows[0];

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 2_000);
  slack = await startFakeSlack();
});
afterAll(async () => {
  for (const r of runtimes) await r.stop();
  await slack?.close();
  await db?.drop();
});

/** A Slack that streams, on a clock of real ts (a lost stream is looked for near the moment it began), with a receiver. */
async function withStreamingSlack(test: (o: { desk: DataDesk; client: WebClient; receiver: Jobs }) => Promise<void>): Promise<void> {
  slack.streaming = true;
  slack.now = () => Date.now();
  try {
    const { desk, logger } = testDesk(db);
    const client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const receiver = await testJobs(db, desk, logger, { work: false });
    runtimes.push(receiver);
    await test({ desk, client, receiver });
  } finally {
    slack.streaming = false;
    slack.now = undefined;
  }
}

/** A stream in the thread as a receiver opens one (for U1 of T1), not recorded anywhere. */
const openStreamIn = (client: WebClient, channel: string, threadTs: string) =>
  client.chat.startStream({
    channel,
    thread_ts: threadTs,
    recipient_user_id: 'U1',
    recipient_team_id: 'T1',
    chunks: [{ type: 'task_update', id: 'wait', title: 'Working on it', status: 'in_progress' }],
  });

/**
 * A worker started once the receiver's placeholder wait is over (as after the receiver died), and the call with
 * which it wrote the answer into the channel (`method` with blocks).
 */
async function answeredByNextWorker(desk: DataDesk, client: WebClient, method: string, channel: string) {
  await new Promise((r) => setTimeout(r, 3_200)); // past the time a worker waits for a receiver's placeholder
  runtimes.push(await testJobs(db, desk, createMemoryLogger(), { slack: client }));
  return slack.waitFor((c) => c.method === method && c.args.channel === channel && Boolean(c.args.blocks), 20_000);
}

describe('answer workers', () => {
  // each test is a deployment of its own: the earlier tests' workers (another desk) must not take its questions
  beforeEach(async () => {
    for (const r of runtimes.splice(0)) await r.stop();
  });

  it('a job fetched by a worker that died before starting it is answered by the next worker', async () => {
    const { desk, logger } = testDesk(db);
    const receiver = await testJobs(db, desk, logger, { work: false });
    runtimes.push(receiver);
    expect(await receiver.queue.enqueue(question('web:fetched-then-died'))).toBe(true);
    // a worker fetches it (the job is active) and dies before taking the question
    const fetched = await receiver.queue.boss.fetch(answerQueue('web'));
    expect(fetched).toHaveLength(1);
    expect((await row('web:fetched-then-died')).status).toBe('queued');
    const worker = await testJobs(db, desk, createMemoryLogger(), { unstartedAfterSeconds: 1, reapEveryMs: 500 });
    runtimes.push(worker);
    const answered = await pollUntil(
      async () => {
        const r = await row('web:fetched-then-died');
        return r.status === 'answered' ? r : undefined;
      },
      20_000,
      'the question answered by the next worker',
    );
    expect(answered.answer).toMatchObject({ kind: 'result', headline: expect.stringMatching(/^Thefts in 2019/) });
  });

  it('a question whose every attempt fails ends as failed, and the asker is told', async () => {
    const logger = createMemoryLogger();
    const broken = {
      answer: async () => {
        throw new Error('the agent broke');
      },
      choose: async () => {
        throw new Error('the agent broke');
      },
    } as unknown as DataDesk;
    const jobs = await testJobs(db, broken, logger, { settings: { retries: 1 } });
    runtimes.push(jobs);
    expect(await jobs.queue.enqueue(question('web:always-fails'))).toBe(true);
    expect(await jobs.queue.enqueue(question('web:always-fails'))).toBe(false);
    const failed = await pollUntil(
      async () => {
        const r = await row('web:always-fails');
        return r.status === 'failed' ? r : undefined;
      },
      30_000,
      'the question marked failed',
    );
    expect(failed.attempts).toBe(2);
    expect(logger.lines.some((l) => l.includes('web:always-fails: every attempt failed; telling the asker'))).toBe(true);
  });

  it('a Slack placeholder posted by a receiver that died before recording it becomes the answer (one message in the thread)', async () => {
    const { desk, logger } = testDesk(db);
    const client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const receiver = await testJobs(db, desk, logger, { work: false });
    runtimes.push(receiver);
    const key = 'slack:event:EvOrphan';
    const threadTs = '1800300001.000100';
    expect(
      await receiver.queue.enqueue({
        key,
        message: {
          platform: 'slack',
          threadId: `slack:C-orphan:${threadTs}`,
          channel: 'C-orphan',
          userId: 'U1',
          text: 'How many thefts were reported in 2019?',
        },
        action: { type: 'answer' },
        reply: { platform: 'slack', channel: 'C-orphan', threadTs, userId: 'U1' },
      }),
    ).toBe(true);
    // the receiver posted its placeholder and died before recording it
    const orphan = await client.chat.postMessage({
      channel: 'C-orphan',
      thread_ts: threadTs,
      text: 'In line…',
      metadata: { event_type: PLACEHOLDER_EVENT, event_payload: { key } },
    });
    const answer = await answeredByNextWorker(desk, client, 'chat.update', 'C-orphan');
    expect(answer.args.ts).toBe(orphan.ts);
    expect(slack.messages.filter((m) => m.channel === 'C-orphan')).toHaveLength(1);
  });

  it('a stream a receiver opened and died before recording is found and ends as the answer (one message in the thread)', async () => {
    await withStreamingSlack(async ({ desk, client, receiver }) => {
      const key = 'slack:event:EvOrphanStream';
      const threadTs = '1800300002.000100';
      const message = {
        platform: 'slack' as const,
        threadId: `slack:T1:C-stream:${threadTs}`,
        channel: 'C-stream',
        userId: 'U1',
        text: 'How many thefts were reported in 2019?',
      };
      const reply = { platform: 'slack' as const, channel: 'C-stream', threadTs, userId: 'U1', workspace: 'T1' };
      expect(await receiver.queue.enqueue({ key, message, action: { type: 'answer' }, reply })).toBe(true);
      // the receiver recorded that it was starting a stream, started it, and died before recording its ts
      await receiver.deliveries.recordStep(key, `stream:starting:${Date.now()}`);
      const orphan = await openStreamIn(client, 'C-stream', threadTs);
      const stop = await answeredByNextWorker(desk, client, 'chat.stopStream', 'C-stream');
      expect(stop.args.ts).toBe(orphan.ts);
      expect(slack.messages.filter((m) => m.channel === 'C-stream').map((m) => m.ts)).toEqual([orphan.ts]);
      expect((await receiver.deliveries.get(key))!.placeholder).toEqual({ ts: orphan.ts, stream: '1' });
      expect(slack.of('chat.startStream').filter((c) => c.args.channel === 'C-stream')).toHaveLength(1);
    });
  });

  it("another app's message is never taken for a lost stream; a question's stream adopted while it began is that answer's, and the question gets its own", async () => {
    await withStreamingSlack(async ({ client, receiver }) => {
      const threadTs = '1800300003.000100';
      const place = { channel: 'C-two', threadTs, userId: 'U1', workspace: 'T1' };
      const ask = (key: string) =>
        receiver.queue.enqueue({
          key,
          message: { platform: 'slack', threadId: `slack:T1:C-two:${threadTs}`, channel: 'C-two', userId: 'U1', text: 'How many thefts?' },
          action: { type: 'answer' },
          reply: { platform: 'slack', ...place },
        });
      // Q1's attempt recorded its start and died before Slack made any stream
      expect(await ask('slack:event:EvQ1')).toBe(true);
      await receiver.deliveries.recordStep('slack:event:EvQ1', `stream:starting:${Date.now()}`);
      // another app posts in the thread meanwhile: not ours, never adopted
      const jira = `${Math.floor(Date.now() / 1000)}.000777`;
      slack.messages.push({ channel: 'C-two', ts: jira, thread_ts: threadTs, text: 'ticket created', bot_id: 'BJIRA' });
      // Q2's stream begins; between Slack making it and Q2 recording it, Q1's next attempt looks for Q1's lost stream
      expect(await ask('slack:event:EvQ2')).toBe(true);
      const deps = { client, deliveries: receiver.deliveries, logger: createMemoryLogger() };
      let adopted: Record<string, string> | undefined;
      const racing = Object.create(receiver.deliveries) as Deliveries;
      racing.claimPlaceholder = async (key, placeholder) => {
        if (key === 'slack:event:EvQ2' && !adopted) {
          const steps = (await receiver.deliveries.get('slack:event:EvQ1'))!.steps;
          adopted = await orphanedStream(deps, 'slack:event:EvQ1', place, steps);
        }
        return receiver.deliveries.claimPlaceholder(key, placeholder);
      };
      const q2 = await placeholderFor({ ...deps, deliveries: racing }, 'slack:event:EvQ2', 'C-two', threadTs, 'In line…', undefined, {
        support: new StreamSupport(),
        place,
        title: 'Working on it',
      });
      // Q1 has the stream begun for Q2 (it is Q1's answer now); Q2 has a message of its own; nothing deleted, nothing shared
      expect(adopted).toMatchObject({ stream: '1' });
      expect(adopted!.ts).not.toBe(jira);
      expect(q2.ts).not.toBe(adopted!.ts);
      expect((await receiver.deliveries.get('slack:event:EvQ1'))!.placeholder).toEqual(adopted);
      expect((await receiver.deliveries.get('slack:event:EvQ2'))!.placeholder).toEqual(q2);
      expect(slack.messages.filter((m) => m.channel === 'C-two').map((m) => m.ts)).toEqual([jira, adopted!.ts, q2.ts]);
      expect(slack.of('chat.delete').filter((c) => c.args.channel === 'C-two')).toEqual([]);
    });
  });
});
