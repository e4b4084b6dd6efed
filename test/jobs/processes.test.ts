// Answering across processes, as a team that outgrew one machine runs it:
// built `datadesk serve` and `datadesk worker` processes on one real
// PostgreSQL, Slack faked over real HTTP. The same event delivered to two
// processes at the same moment is answered once; a worker killed with
// SIGKILL mid-answer is replaced by another, which finishes the same reply.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { postMention, startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { tempDir } from '../helpers/files.js';
import { processEnv, spawnServe, spawnWorker } from '../helpers/serve.js';
import { pollUntil } from '../helpers/wait.js';

const SECRET = 'processes-signing-secret';
let db: TestDatabase;
let slack: FakeSlack;
let llm: FakeLlm;
const children: ChildProcess[] = [];
const homes: ReturnType<typeof tempDir>[] = [];

const env = (extra: Record<string, string> = {}) =>
  processEnv(db.url, homes, {
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    RATE_LIMIT_CHANNEL_PER_MINUTE: '1000',
    ...extra,
  });

/** What a person sees in the thread of `ts`: the bot's messages still there, and the blocks each ended with. */
function thread(ts: string) {
  const posted = slack.of('chat.postMessage').filter((c) => c.args.thread_ts === ts);
  const alive = slack.messages.filter((m) => m.thread_ts === ts);
  const answers = slack.of('chat.update').filter((c) => c.args.blocks && alive.some((m) => m.ts === c.args.ts));
  return { posted, alive, answers };
}

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  slack = await startFakeSlack();
  llm = await startFakeLlm();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await slack?.close();
  await llm?.close();
  for (const h of homes) h.remove();
  await db?.drop();
});

describe('answering across processes', () => {
  it('the same Slack event delivered to two processes at the same moment gets one placeholder and one answer (8 events)', async () => {
    const [a, b] = await Promise.all([spawnServe(env(), children), spawnServe(env(), children)]);
    const events = Array.from({ length: 8 }, (_, i) => ({ eventId: `EvTwice${i}`, ts: `1800100${String(i).padStart(3, '0')}.000100` }));
    for (const e of events) {
      const text = '<@UBOT> How many thefts were reported in 2019?';
      const statuses = await Promise.all([a, b].map((p) => postMention(p.url, SECRET, { ...e, channel: 'C1', text })));
      expect(statuses).toEqual([200, 200]);
    }
    for (const e of events)
      await pollUntil(async () => (thread(e.ts).answers.length ? true : undefined), 120_000, `the answer in thread ${e.ts}`);
    await new Promise((r) => setTimeout(r, 1_500)); // room for a second answer, were there one
    for (const e of events) {
      const t = thread(e.ts);
      expect(t.alive, `thread ${e.ts}`).toHaveLength(1);
      expect(t.answers, `thread ${e.ts}`).toHaveLength(1);
      expect(JSON.stringify(t.answers[0].args.blocks)).toContain('Thefts in 2019, all of Chicago');
    }
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM deliveries WHERE key LIKE 'slack:event:EvTwice%' AND status = 'answered'`,
    );
    expect(rows[0].n).toBe(8);
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
  }, 300_000);

  /** A question whose first worker is killed with SIGKILL while the model thinks; a second worker finishes it. */
  async function killedMidAnswer(eventId: string, ts: string, channel: string) {
    // the model never answers the first worker (its request is held until the worker dies), so however slow
    // the machine, the first worker cannot finish before it is killed; the answer deadline is out of the way
    let calls = 0;
    llm.respond = () => (++calls === 1 ? { hang: true } : { content: JSON.stringify({ sql: 'SELECT count(*) AS crimes FROM crimes' }) });
    const withLlm = { LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'scripted', LLM_API_KEY: 'k', ANSWER_DEADLINE_MS: '600000' };
    const receiver = await spawnServe(env(withLlm), children, ['--no-worker']);
    const first = await spawnWorker(env(withLlm), children);
    const key = `slack:event:${eventId}`;
    const text = '<@UBOT> Which crimes tend to cluster within an hour of each other?';
    expect(await postMention(receiver.url, SECRET, { eventId, ts, channel, text })).toBe(200);
    const taken = await pollUntil(
      async () => {
        const { rows } = await db.pool.query(`SELECT worker_id, placeholder FROM deliveries WHERE key = $1 AND status = 'answering'`, [
          key,
        ]);
        return rows[0] && calls >= 1 ? rows[0] : undefined;
      },
      120_000,
      'the first worker to take the question and ask the model',
    ).catch(async (error) => {
      const { rows } = await db.pool.query(`SELECT * FROM deliveries WHERE key = $1`, [key]);
      throw new Error(
        `${error.message}; LLM calls ${calls}; row ${JSON.stringify(rows[0])}\nreceiver:\n${receiver.log()}\nworker:\n${first.log()}`,
      );
    });
    const second = await spawnWorker(env(withLlm), children);
    first.child.kill('SIGKILL');
    const answered = await pollUntil(
      async () => {
        const { rows } = await db.pool.query(
          `SELECT status, attempts, worker_id, placeholder FROM deliveries WHERE key = $1 AND status = 'answered'`,
          [key],
        );
        return rows[0];
      },
      120_000,
      'the question answered by the second worker',
    );
    expect(answered.worker_id).not.toBe(taken.worker_id);
    expect(answered.attempts).toBe(2);
    expect(answered.placeholder).toEqual(taken.placeholder);
    await pollUntil(
      async () => (/stopped mid-answer; 1 question handed to the next worker/.test(second.log()) ? true : undefined),
      60_000,
      "the second worker's log line about the question it took over",
    );
    expect(llm.abandoned).toBeGreaterThanOrEqual(1); // the killed worker's request, closed by its death
    receiver.child.kill('SIGTERM');
    second.child.kill('SIGTERM');
    return { placeholder: taken.placeholder as { ts: string; stream?: string }, t: thread(ts) };
  }

  it('a worker killed with SIGKILL mid-answer: another worker finishes the same placeholder, one answer', async () => {
    const { placeholder, t } = await killedMidAnswer('EvKilled', '1800200001.000100', 'C2');
    expect(t.alive).toHaveLength(1);
    expect(t.alive[0].ts).toBe(placeholder.ts);
    expect(t.answers).toHaveLength(1);
  }, 300_000);

  it('a worker killed with SIGKILL mid-stream: the next worker ends the same stream, one message, one answer', async () => {
    slack.streaming = true;
    try {
      const { placeholder, t } = await killedMidAnswer('EvKilledStream', '1800200002.000100', 'C3');
      expect(placeholder.stream).toBe('1');
      expect(t.alive.map((m) => m.ts)).toEqual([placeholder.ts]);
      expect(slack.of('chat.startStream').filter((c) => c.args.thread_ts === '1800200002.000100')).toHaveLength(1);
      // the second worker ended the stream the receiver opened (and the first worker appended to) with the answer
      const stops = slack.of('chat.stopStream').filter((c) => c.args.ts === placeholder.ts && c.args.blocks);
      expect(stops).toHaveLength(1);
      // the answer: the database's count of the 3,000 crimes loaded, and the model's SQL as it ran (moved onto a rollup since 36c01df)
      expect(JSON.stringify(stops[0].args.blocks)).toContain('{"type":"raw_number","value":3000,"text":"3,000"}');
      expect(JSON.stringify(stops[0].args.blocks)).toMatch(
        /-- answered from crimes_by_\w+ .*SELECT coalesce\(sum\(n\), 0\) AS crimes FROM crimes_by_\w+/,
      );
      expect(t.alive[0].text).toMatch(/\*\*.+\*\*/);
    } finally {
      slack.streaming = false;
    }
  }, 300_000);
});
