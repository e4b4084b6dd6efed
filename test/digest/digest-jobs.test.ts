// Digest periods as durable jobs: the leading scheduler only claims and
// hands the period to the inbox; answer workers (two here, as two processes
// would) run the period with the digest producer, once, even when the same
// period is queued twice.
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.js';
import { crimeDigest } from '../../src/digest/content.js';
import { slackPoster } from '../helpers/jobs.js';
import { digestProducer } from '../../src/digest/digest-jobs.js';
import { receive } from '../../src/channels/inbox.js';
import { startJobs, type Jobs } from '../../src/jobs/runtime.js';
import { testDesk } from '../helpers/desk.js';
import { DigestScheduler, type DigestContent } from '../../src/digest/scheduler.js';
import { digestCommand } from '../../src/digest/subscriptions.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { pollUntil } from '../helpers/wait.js';

let db: TestDatabase;
let slack: FakeSlack;
const runtimes: Jobs[] = [];
let produced = 0;

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

describe('digests as jobs', () => {
  it('the leader queues a due period; one of two workers posts it once, even when it is queued twice', async () => {
    const logger = createMemoryLogger();
    const content: DigestContent = { produce: async (_sub, period) => (produced++, { answer: await crimeDigest(db.pool, period) }) };
    const deliver = {
      slack: slackPoster(new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }), db.pool, logger),
    };
    const { desk } = testDesk(db);
    for (let i = 0; i < 2; i++) {
      runtimes.push(
        await startJobs({
          pool: db.pool,
          desk,
          logger,
          settings: { concurrency: 1, perUser: 1, perChannel: 1, retries: 3 },
          outboxes: deliver,
          work: true,
          digests: digestProducer({ pool: db.pool, logger, content }),
        }),
      );
    }
    const reply = await digestCommand(db.pool, 'digest daily 08:00 UTC', {
      platform: 'slack',
      channel: 'C-jobs',
      userId: 'U1',
      defaultTimezone: 'UTC',
    });
    const id = Number(/^Digest #(\d+)/.exec(reply)![1]);
    await db.pool.query(`UPDATE digest_subscriptions SET created_at = now() - interval '2 days' WHERE id = $1`, [id]);
    const inbox = { queue: runtimes[0].queue, deliveries: runtimes[0].deliveries, logger };
    let dispatched = 0;
    const scheduler = new DigestScheduler({
      pool: db.pool,
      logger,
      deliver,
      graceMs: 3 * 86_400_000,
      dispatch: async (job) => {
        dispatched++;
        await receive(inbox, job);
        return receive(inbox, job); // a second job for the same period (a lease takeover does this)
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
