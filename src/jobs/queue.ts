// The durable queue questions wait in: pg-boss (an existing engine, not ours)
// in the app's own PostgreSQL, schema datadesk_jobs, through the app's pool.
// Enqueueing admits the delivery key and sends the job in one transaction:
// either both happen or neither, and a second delivery of the same key finds
// it taken. Any process that reaches DATABASE_URL can enqueue or work.
import { bestEffort } from '../core/best-effort.js';
import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Logger } from '../core/logger.js';
import { describeError } from '../core/errors.js';
import { REPLY_PLATFORMS, type ReplyPlatform } from '../core/platform.js';
import {
  answerJobSchema,
  answerQueue,
  DIGEST_JOB_OPTIONS,
  digestJobSchema,
  failedQueue,
  isDigestJob,
  type AnswerJob,
  type DigestJob,
  type QueuedJob,
} from './answer-job.js';
import { Deliveries } from './deliveries.js';
import type { Queryable } from './queryable.js';
import { dedicatedClient } from './dedicated-client.js';
import { JobDispatcher } from './job-dispatcher.js';
import { inTransaction } from '../db/transaction.js';

const JOBS_SCHEMA = 'datadesk_jobs';

export interface QueueSettings {
  /** attempts after the first when a worker fails or dies mid-answer */
  retryLimit?: number;
  /** a job still active after this long is failed and retried (a last resort; dead workers are noticed sooner, see answer-worker.ts) */
  expireInSeconds?: number;
}

const asDb = (q: Queryable): PgBoss.Db => ({ executeSql: (text, values) => q.query(text, values) });

export class AnswerQueue {
  /** this process's dispatchers per queue: a job queued here wakes its queue's at once */
  private dispatchers = new Map<string, JobDispatcher<QueuedJob>>();

  private constructor(
    readonly boss: PgBoss,
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  static async open(pool: pg.Pool, logger: Logger, settings: QueueSettings = {}): Promise<AnswerQueue> {
    const boss = new PgBoss({ db: asDb(pool), schema: JOBS_SCHEMA, schedule: false, supervise: true, migrate: true });
    // pg-boss reports fetch and maintenance failures as events; unheard, an 'error' event would end the process
    boss.on('error', (error) => logger.warn(`jobs: ${describeError(error)}`));
    const retry = { retryLimit: settings.retryLimit ?? 3, retryDelay: 1, expireInSeconds: settings.expireInSeconds ?? 600 };
    // processes starting at once would create the same queues (tables, partitions) at once and deadlock: one at a time
    await oneAtATime(pool, async () => {
      await boss.start();
      for (const platform of REPLY_PLATFORMS) {
        await ensureQueue(boss, failedQueue(platform), { retryLimit: 2, retryDelay: 5, expireInSeconds: 120 });
        await ensureQueue(boss, answerQueue(platform), { ...retry, deadLetter: failedQueue(platform) });
      }
    });
    return new AnswerQueue(boss, pool, logger);
  }

  /** Admits and queues a question or a digest period; false when its key was delivered before (nothing is queued). */
  async enqueue(job: QueuedJob): Promise<boolean> {
    if (isDigestJob(job)) return this.enqueueDigest(job);
    const data = answerJobSchema.parse(job);
    const jobId = randomUUID();
    // a question nobody admitted is rolled back whole: its key stays free for the platform's retry
    const admitted = await inTransaction(this.pool, async (tx) => {
      if (
        !(await Deliveries.admit(tx, {
          key: data.key,
          jobId,
          platform: data.message.platform,
          workspace: data.message.workspace,
          channel: data.message.channel,
          userId: data.message.userId,
          question: data.message.text,
        }))
      )
        return false;
      await this.boss.send(answerQueue(data.reply.platform), data, { id: jobId, db: asDb(tx) });
      return true;
    });
    if (!admitted) return false;
    // a worker in this process need not wait for its next poll
    this.dispatchers.get(answerQueue(data.reply.platform))?.notify();
    return true;
  }

  /**
   * A claimed digest period goes on its platform's answer queue with its own retries (DIGEST_JOB_OPTIONS). It is
   * not admitted here: a period handed on again (a lease takeover) must reach a worker even while its delivery is
   * open, and the run's lock and row let only one worker post it; a period whose delivery ended is not queued.
   */
  private async enqueueDigest(job: DigestJob): Promise<boolean> {
    const data = digestJobSchema.parse(job);
    const ended = await this.pool.query(`SELECT 1 FROM deliveries WHERE key = $1 AND status IN ('answered', 'failed')`, [data.key]);
    if (ended.rowCount) return false;
    await this.boss.send(answerQueue(data.platform), data, DIGEST_JOB_OPTIONS);
    this.dispatchers.get(answerQueue(data.platform))?.notify();
    return true;
  }

  /** Puts the question back in line as a new job that starts after `seconds` (fairness); the old job then ends. */
  async defer(job: AnswerJob, seconds: number): Promise<void> {
    const jobId = randomUUID();
    await inTransaction(this.pool, async (tx) => {
      await this.boss.send(answerQueue(job.reply.platform), job, { id: jobId, startAfter: seconds, db: asDb(tx) });
      await Deliveries.moveToJob(tx, job.key, jobId);
    });
  }

  /**
   * Jobs a worker fetched but never started (their question is still 'queued'
   * long after the fetch): the worker died in between, or never got a
   * connection. They are failed, so that their retries run now; the question's
   * row decides who answers, so a late start of the original does no harm.
   * Reads pg-boss 10's job table, the one place that knows the fetch time.
   */
  async unstartedJobs(olderThanSeconds: number): Promise<{ id: string; platform: ReplyPlatform; key: string }[]> {
    const { rows } = await this.pool.query<{ id: string; platform: ReplyPlatform; key: string }>(
      `SELECT j.id, d.platform, d.key FROM ${JOBS_SCHEMA}.job j JOIN deliveries d ON d.job_id = j.id
       WHERE j.name LIKE 'answer-%' AND j.state = 'active' AND d.status = 'queued' AND j.started_on < now() - make_interval(secs => $1)`,
      [olderThanSeconds],
    );
    return rows;
  }

  /** Fails the jobs of a dead worker so that their retries run now (see answer-worker.ts). */
  async failJobs(tx: Queryable, platform: ReplyPlatform, jobIds: string[], reason: string): Promise<void> {
    for (const id of jobIds) await this.boss.fail(answerQueue(platform), id, { message: reason }, { db: asDb(tx) });
  }

  /** Runs a platform's jobs, `concurrency` at a time (see job-dispatcher.ts). */
  async work(platform: ReplyPlatform, concurrency: number, handler: (job: PgBoss.Job<QueuedJob>) => Promise<void>): Promise<void> {
    this.dispatch(answerQueue(platform), concurrency, 1_000, handler);
  }

  /** Jobs whose every attempt failed: one at a time, the handler tells the asker. */
  async workFailed(platform: ReplyPlatform, handler: (job: PgBoss.Job<QueuedJob>) => Promise<void>): Promise<void> {
    this.dispatch(failedQueue(platform), 1, 2_000, handler);
  }

  private dispatch(queue: string, slots: number, pollMs: number, handler: (job: PgBoss.Job<QueuedJob>) => Promise<void>): void {
    if (this.dispatchers.has(queue)) throw new Error(`jobs: ${queue} is worked already in this process`);
    const onError = (error: unknown) => this.logger.warn(`jobs: ${queue}: ${describeError(error)}`);
    this.dispatchers.set(queue, new JobDispatcher(this.boss, queue, slots, handler, { pollMs, onError }));
  }

  /** Stops fetching; waits up to `timeoutMs` for answers in progress (their jobs are retried elsewhere if cut off). */
  async stop(timeoutMs = 20_000): Promise<void> {
    await Promise.all([...this.dispatchers.values()].map((d) => d.stop(timeoutMs)));
    this.dispatchers.clear();
    await this.boss
      .stop({ graceful: true, wait: true, close: false, timeout: timeoutMs })
      .catch((error) => this.logger.warn(`jobs: stopping: ${describeError(error)}`));
  }
}

const SETUP_LOCK = 7_322_012;

/** Runs `setup` while holding a session advisory lock on a connection of its own (released however setup ends). */
async function oneAtATime<T>(pool: pg.Pool, setup: () => Promise<T>): Promise<T> {
  const client = await dedicatedClient(pool, () => undefined);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SETUP_LOCK]);
    return await setup();
  } finally {
    await bestEffort(client.end(), 'closing the queue connection');
  }
}

/** Creates a queue, or brings an existing one's settings up to date. */
async function ensureQueue(boss: PgBoss, name: string, options: Omit<PgBoss.Queue, 'name'>): Promise<void> {
  if (await boss.getQueue(name)) await boss.updateQueue(name, { name, ...options });
  else await boss.createQueue(name, { name, ...options });
}
