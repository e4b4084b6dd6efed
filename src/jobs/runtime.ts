// A process's part in answering: the queue (every process enqueues), and,
// unless it only receives, the workers with their identity and the platforms
// it can reply to. `serve` runs both; `serve --no-worker` only receives;
// `datadesk worker` only works.
import type pg from 'pg';
import type { DataDesk } from '../agents/desk.js';
import type { Logger } from '../core/logger.js';
import type { ReplyPlatform } from '../core/platform.js';
import { startAnswerWorkers, type AnswerWorkers, type DigestProducer, type JobOutbox } from './answer-worker.js';
import { Deliveries } from './deliveries.js';
import { JobEvents } from './job-events.js';
import { AnswerQueue } from './queue.js';
import { WorkerIdentity } from './worker-identity.js';

export interface JobSettings {
  concurrency: number;
  perUser: number;
  perChannel: number;
  retries: number;
}

export interface JobsOptions {
  pool: pg.Pool;
  desk: DataDesk;
  logger: Logger;
  settings: JobSettings;
  /** the platforms this process replies to; no workers run when `work` is false */
  outboxes: Partial<Record<ReplyPlatform, JobOutbox>>;
  work: boolean;
  /** how the workers run digest periods (src/digest's producer); none: they run none */
  digests?: DigestProducer;
  reapEveryMs?: number;
  unstartedAfterSeconds?: number;
}

export interface Jobs {
  queue: AnswerQueue;
  deliveries: Deliveries;
  events: JobEvents;
  workers?: AnswerWorkers;
  identity?: WorkerIdentity;
  stop(): Promise<void>;
}

export async function startJobs(o: JobsOptions): Promise<Jobs> {
  const queue = await AnswerQueue.open(o.pool, o.logger, { retryLimit: o.settings.retries });
  const deliveries = new Deliveries(o.pool);
  const events = new JobEvents(o.pool, o.logger);
  let identity: WorkerIdentity | undefined;
  let workers: AnswerWorkers | undefined;
  if (o.work) {
    identity = new WorkerIdentity(o.pool, o.logger);
    const number = await identity.current();
    workers = await startAnswerWorkers({
      queue,
      pool: o.pool,
      desk: o.desk,
      identity,
      outboxes: o.outboxes,
      digests: o.digests,
      logger: o.logger,
      concurrency: o.settings.concurrency,
      limits: { perUser: o.settings.perUser, perChannel: o.settings.perChannel },
      reapEveryMs: o.reapEveryMs,
      unstartedAfterSeconds: o.unstartedAfterSeconds,
    });
    o.logger.info(
      `Worker ${number}: answering ${Object.keys(o.outboxes).join(', ')} questions, ${o.settings.concurrency} at a time per platform`,
    );
  }
  return {
    queue,
    deliveries,
    events,
    workers,
    identity,
    stop: async () => {
      await workers?.stop();
      await queue.stop();
      await identity?.close();
      await events.close();
    },
  };
}
