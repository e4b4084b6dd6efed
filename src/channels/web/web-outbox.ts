// The playground's outbox (see core/platform.ts): replies only, no digests.
// The worker's side of a playground answer: the answer is already kept on
// the delivery row (the worker saves it before delivering), so the sink only
// tells the waiting receiver, in whatever process holds the page's stream,
// how far the question got and that it is done (NOTIFY, see job-events.ts).
import type pg from 'pg';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import { notifyJobEvent } from '../../jobs/job-events.js';
import type { JobOutbox } from '../../jobs/answer-worker.js';

export function webOutbox(pool: pg.Pool, logger: Logger): JobOutbox {
  const replies: JobOutbox['replies'] = async (job) => {
    const tell = (event: Parameters<typeof notifyJobEvent>[1]) =>
      notifyJobEvent(pool, event).catch((error) => logger.debug(`jobs: notify ${job.key}: ${describeError(error)}`));
    return {
      progress: (step) => void tell({ key: job.key, step }),
      deliver: async (_answer, steps) => {
        await steps.record('answer');
        await tell({ key: job.key, done: true });
      },
      giveUp: async () => {
        await tell({ key: job.key, done: true });
      },
    };
  };
  return { replies };
}
