// The digest producer of the answer workers. The leading scheduler only claims
// a due period and hands it to the inbox as a job (scheduler.ts digestJob); a
// worker of the subscription's platform takes it from that platform's answer
// queue and runs it with runDigest: the period is a delivery, its answer
// produced once by the digest's content and posted through the platform's
// reply sink; the run's lock keeps two workers apart. So the receiver that
// leads never does the heavy part (the digest's queries, a backtest watch),
// and a worker that dies mid-run is retried by pg-boss, finishing the same run.
import type { DigestProducer } from '../jobs/answer-worker.js';
import { runDigest, type RunDeps } from './scheduler.js';
import type { Subscription } from './subscriptions.js';

/** How the answer workers run digest jobs, with the outbox of the job's platform. */
export function digestProducer(deps: Omit<RunDeps, 'deliver'>): DigestProducer {
  return async (job, outbox) => {
    const { rows } = await deps.pool.query<Subscription>('SELECT * FROM digest_subscriptions WHERE id = $1', [job.subscriptionId]);
    const sub = rows[0];
    // turned off since its period was claimed: nothing is posted
    if (!sub?.enabled) return 'done';
    const period = { start: new Date(job.start), end: new Date(job.end) };
    const outcome = await runDigest({ ...deps, deliver: { [job.platform]: outbox } }, sub, job.runId, period);
    return outcome === 'busy' ? 'busy' : 'done';
  };
}
