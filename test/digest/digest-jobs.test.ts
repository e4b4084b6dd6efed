// Digest periods as durable jobs: the leading scheduler only claims and
// queues; workers (two here, as two processes would) run the period, once,
// even when the same period is queued twice.
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.js';
import { crimeDigest } from '../../src/digest/content.js';
import { slackPoster } from '../helpers/jobs.js';
import { digestDispatch, ensureDigestQueues, workDigests } from '../../src/digest/digest-jobs.js';
import { DigestScheduler, type DigestContent } from '../../src/digest/scheduler.js';
import { digestCommand } from '../../src/digest/subscriptions.js';
import { AnswerQueue } from '../../src/jobs/queue.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { pollUntil } from '../helpers/wait.js';

let db: TestDatabase;
let slack: FakeSlack;
const queues: AnswerQueue[] = [];
let produced = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 2_000);
  slack = await startFakeSlack();
});
afterAll(async () => {
  for (const q of queues) await q.stop(2_000);
  await slack?.close();
  await db?.drop();
});

describe('digests as jobs', () => {
  it('the leader queues a due period; one of two workers posts it once, even when it is queued twice', async () => {
    const logger = createMemoryLogger();
    const content: DigestContent = { produce: async (_sub, period) => (produced++, { answer: await crimeDigest(db.pool, period) }) };
    const deliver = {
      slack: slackPoster(new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }), db.pool, logger),
    };
    for (let i = 0; i < 2; i++) {
      const queue = await AnswerQueue.open(db.pool, logger);
      await ensureDigestQueues(queue.boss, db.pool);
      await workDigests(queue.boss, { pool: db.pool, logger, content, deliver });
      queues.push(queue);
    }
    const reply = await digestCommand(db.pool, 'digest daily 08:00 UTC', {
      platform: 'slack',
      channel: 'C-jobs',
      userId: 'U1',
      defaultTimezone: 'UTC',
    });
    const id = Number(/^Digest #(\d+)/.exec(reply)![1]);
    await db.pool.query(`UPDATE digest_subscriptions SET created_at = now() - interval '2 days' WHERE id = $1`, [id]);
    const dispatch = digestDispatch(queues[0].boss);
    let dispatched = 0;
    const scheduler = new DigestScheduler({
      pool: db.pool,
      logger,
      content,
      deliver,
      graceMs: 3 * 86_400_000,
      dispatch: async (sub, runId, period) => {
        dispatched++;
        await dispatch(sub, runId, period);
        await dispatch(sub, runId, period); // a second job for the same period (a lease takeover does this)
      },
    });
    try {
      expect(await scheduler.tick()).toBeGreaterThanOrEqual(1);
      const runs = await pollUntil(
        async () => {
          const { rows } = await db.pool.query(`SELECT status FROM digest_runs WHERE subscription_id = $1`, [id]);
          return rows.length && rows.every((r) => r.status === 'posted') ? rows : undefined;
        },
        30_000,
        'the queued periods posted',
      );
      await new Promise((r) => setTimeout(r, 1_500));
      const posts = slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'C-jobs');
      expect(posts).toHaveLength(runs.length);
      expect(runs.length).toBe(dispatched);
      expect(produced).toBe(dispatched);
      expect(String(posts[0].args.text)).toMatch(/^Crime digest/);
    } finally {
      await scheduler.stop();
    }
  }, 60_000);
});
