// The playground's outbox (see core/platform.ts): replies only, no digests.
// The worker's side of a playground answer: the reply is the answer on the
// delivery row (replyIsTheRow: the worker keeps it there with the statement
// that ends the question), and that statement tells the waiting receiver, in
// whatever process holds the page's stream (Deliveries.finish, job-events.ts).
// So the sink only tells how far the question got: a step is told once it has
// lasted a moment, so an answer quicker than that sends no NOTIFY at all (each
// is a statement), and a slower one at most one per PROGRESS_AFTER_MS, each
// step at most once.
import type pg from 'pg';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import { notifyJobStep } from '../../jobs/job-events.js';
import type { JobOutbox } from '../../jobs/answer-worker.js';

/** How long a step waits before it is told; a later step in the meantime replaces it. */
export const PROGRESS_AFTER_MS = 150;

export function webOutbox(pool: pg.Pool, logger: Logger): JobOutbox {
  const replies: JobOutbox['replies'] = async (job) => {
    let latest: string | undefined;
    let told: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    const tell = () => {
      timer = undefined;
      if (latest === undefined || latest === told) return;
      told = latest;
      notifyJobStep(pool, job.key, latest).catch((error) => logger.debug(`jobs: notify ${job.key}: ${describeError(error)}`));
    };
    const done = async () => {
      clearTimeout(timer);
      latest = undefined;
    };
    return {
      progress: (step) => {
        latest = step;
        timer ??= setTimeout(tell, PROGRESS_AFTER_MS);
      },
      // the row is the reply: the worker kept the answer on it, and finishing it tells the receiver
      deliver: done,
      giveUp: done,
    };
  };
  return { replies, replyIsTheRow: true };
}
