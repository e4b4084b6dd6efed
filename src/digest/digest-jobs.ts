// Digest periods as durable jobs. The leading scheduler only claims a due
// period and queues it (on the platform's own queue); a worker configured for
// that platform runs it with runDigest, a delivery that is posted once, whose
// per-run lock keeps two runners apart. So the receiver that leads never does
// the heavy part (the digest's queries, a backtest watch), and a worker that
// dies mid-run is retried by pg-boss, finishing the same run.
import type PgBoss from 'pg-boss';
import type { Logger } from '../core/logger.js';
import type pg from 'pg';
import { CHAT_PLATFORMS } from '../core/platform.js';
import { ensureQueue, oneAtATime } from '../jobs/queue.js';
import { runDigest, type Period, type Platform, type RunDeps } from './scheduler.js';
import type { Subscription } from './subscriptions.js';

const digestQueue = (platform: Platform) => `digest-${platform}`;

interface DigestJob {
  subscriptionId: number;
  runId: number;
  start: string;
  end: string;
}

/** What the scheduler calls instead of running a claimed period itself. */
export function digestDispatch(boss: PgBoss): (sub: Subscription, runId: number, period: Period) => Promise<void> {
  return async (sub, runId, period) => {
    await boss.send(digestQueue(sub.platform), {
      subscriptionId: sub.id,
      runId,
      start: period.start.toISOString(),
      end: period.end.toISOString(),
    } satisfies DigestJob);
  };
}

/** Runs queued periods of the platforms this process can deliver to. */
export async function workDigests(boss: PgBoss, deps: RunDeps & { logger: Logger }): Promise<void> {
  for (const platform of CHAT_PLATFORMS) {
    if (!deps.deliver[platform]) continue;
    await boss.work<DigestJob>(digestQueue(platform), { batchSize: 1, pollingIntervalSeconds: 5 }, async ([job]) => {
      const { rows } = await deps.pool.query<Subscription>('SELECT * FROM digest_subscriptions WHERE id = $1', [job.data.subscriptionId]);
      const sub = rows[0];
      if (!sub?.enabled) return;
      const outcome = await runDigest(deps, sub, job.data.runId, { start: new Date(job.data.start), end: new Date(job.data.end) });
      // another runner has the period right now: try again later (pg-boss retries), it will find it done or finish it
      if (outcome === 'busy') throw new Error(`digest run ${job.data.runId} is being run elsewhere`);
    });
  }
  deps.logger.debug(`digests: this worker runs ${CHAT_PLATFORMS.filter((p) => deps.deliver[p]).join(', ') || 'no'} digests`);
}

/** pg-boss queues of digests: a failed run is retried every 30 s for a while, then its row says why. */
export async function ensureDigestQueues(boss: PgBoss, pool: pg.Pool): Promise<void> {
  await oneAtATime(pool, async () => {
    for (const platform of CHAT_PLATFORMS)
      await ensureQueue(boss, digestQueue(platform), { retryLimit: 10, retryDelay: 30, expireInSeconds: 900 });
  });
}
