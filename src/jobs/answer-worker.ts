// The worker side of answering: fetch a question's job, take the question
// (once, within the fairness limits), let the desk answer it, keep the answer,
// and hand it to the platform's reply sink, which replaces the placeholder the
// asker is looking at. A failed attempt gives the question back and pg-boss
// retries it; a worker that died mid-answer is noticed through its advisory
// lock and its questions are retried at once by the others; a question whose
// every attempt failed is told so in its thread. One answer, never two, never none.
import { bestEffort } from '../core/best-effort.js';
import type PgBoss from 'pg-boss';
import type pg from 'pg';
import type { DataDesk } from '../agents/desk.js';
import type { Answer } from '../core/answer.js';
import type { Logger } from '../core/logger.js';
import type { ProgressReporter } from '../core/progress.js';
import { describeError } from '../core/errors.js';
import { inTransaction } from '../db/transaction.js';
import { ChannelGoneError, type Outbox, type ReplyPlatform } from '../core/platform.js';
import { answerJobSchema, digestJobSchema, isDigestJob, type AnswerJob, type DigestJob, type QueuedJob } from './answer-job.js';
import { Deliveries, isAlive, type AnsweringLimits, type DeliveryRow } from './deliveries.js';
import type { AnswerQueue } from './queue.js';
import type { WorkerIdentity } from './worker-identity.js';

/**
 * A platform's outbox as the workers use it: replies to answer jobs (and, for chat platforms, digest posts).
 * `replyIsTheRow`: the reply is the answer kept on the delivery row (the playground reads it there), so it is kept
 * by the statement that finishes the delivery rather than by one of its own before the sink delivers.
 */
export type JobOutbox = Outbox<AnswerJob, DeliveryRow> & { replyIsTheRow?: boolean };

/**
 * Produces a digest job's answer and posts it through the platform's outbox (src/digest builds it: workers never
 * import the digest). 'busy': another worker runs the period right now; the job is tried again later.
 */
export type DigestProducer = (job: DigestJob, outbox: JobOutbox) => Promise<'busy' | 'done'>;

export interface AnswerWorkerDeps {
  queue: AnswerQueue;
  pool: pg.Pool;
  desk: DataDesk;
  identity: WorkerIdentity;
  /** the platforms this process can reply to, each with its outbox */
  outboxes: Partial<Record<ReplyPlatform, JobOutbox>>;
  limits: AnsweringLimits;
  /** how this worker runs digest jobs (no fairness limit applies: a digest is nobody's question); none: it runs none */
  digests?: DigestProducer;
  /** handlers per platform queue */
  concurrency: number;
  logger: Logger;
  /** how often dead workers are looked for */
  reapEveryMs?: number;
  /** a job fetched this long ago whose question never started is handed on (default 30 s) */
  unstartedAfterSeconds?: number;
}

export const GAVE_UP_MESSAGE = 'I could not answer this question: every attempt failed (it has been logged). Please ask it again.';

export interface AnswerWorkers {
  /** one pass of the dead-worker check (also run on a timer) */
  reap(): Promise<number>;
  /** one pass of the never-started check (also run on a timer) */
  rescue(): Promise<number>;
  stop(): Promise<void>;
}

export async function startAnswerWorkers(deps: AnswerWorkerDeps): Promise<AnswerWorkers> {
  const deliveries = new Deliveries(deps.pool);
  const { logger } = deps;

  const handleDigest = async (data: DigestJob): Promise<void> => {
    // thrown, the job is retried (DIGEST_JOB_OPTIONS): a worker that runs digests may take it
    if (!deps.digests) throw new Error(`this worker runs no digests; ${data.key} is left to one that does`);
    const outcome = await deps.digests(data, deps.outboxes[data.platform]!);
    if (outcome === 'busy') throw new Error(`${data.key} is being run by another worker; tried again later`);
  };

  const handle = async (job: PgBoss.Job<QueuedJob>): Promise<void> => {
    if (isDigestJob(job.data)) return handleDigest(digestJobSchema.parse(job.data));
    const data = answerJobSchema.parse(job.data);
    const outbox = deps.outboxes[data.reply.platform]!;
    const me = await deps.identity.current();
    const verdict = await deliveries.take(data.key, job.id, me, deps.limits);
    if (!verdict.go) {
      if (verdict.why === 'wait') {
        logger.debug(`jobs: ${data.key} waits (${verdict.reason})`);
        await deps.queue.defer(data, 1);
      }
      return;
    }
    try {
      const sink = await outbox.replies(data, verdict.delivery);
      let answer = verdict.delivery.answer;
      if (!answer) {
        answer = await produce(deps.desk, data, (step) => sink.progress(step));
        if (!outbox.replyIsTheRow) await deliveries.saveAnswer(data.key, answer);
      }
      const done = new Set(verdict.delivery.steps);
      await sink.deliver(answer, {
        done: (step) => done.has(step),
        record: async (step) => {
          done.add(step);
          await deliveries.recordStep(data.key, step);
        },
      });
      await deliveries.finish(data.key, 'answered', outbox.replyIsTheRow ? answer : undefined);
    } catch (error) {
      // the channel cannot be reached with this token (not found, not a member, another workspace's): final, not retried
      if (error instanceof ChannelGoneError) {
        logger.warn(`jobs: ${data.key}: not answered, and not tried again: ${error.message}`);
        await deliveries.finish(data.key, 'failed');
        return;
      }
      logger.warn(`jobs: ${data.key}: attempt ${verdict.delivery.attempts} failed: ${describeError(error)}`);
      await bestEffort(deliveries.release(data.key, me), `releasing delivery ${data.key}`);
      throw error;
    }
  };

  const giveUp = async (job: PgBoss.Job<QueuedJob>): Promise<void> => {
    // a digest's run says itself why it failed (its give-up is posted by the run); its claim is the scheduler's to take over
    if (isDigestJob(job.data)) return void logger.error(`jobs: ${job.data.key}: every attempt of the digest job failed`);
    const data = answerJobSchema.parse(job.data);
    const delivery = await deliveries.get(data.key);
    if (!delivery || delivery.status === 'answered' || delivery.status === 'failed') return;
    logger.error(`jobs: ${data.key}: every attempt failed; telling the asker`);
    const sink = await deps.outboxes[data.reply.platform]!.replies(data, delivery);
    await sink.giveUp(GAVE_UP_MESSAGE);
    await deliveries.finish(data.key, 'failed');
  };

  for (const platform of Object.keys(deps.outboxes) as ReplyPlatform[]) {
    await deps.queue.work(platform, deps.concurrency, handle);
    await deps.queue.workFailed(platform, giveUp);
  }

  const reap = async (): Promise<number> => {
    const me = await deps.identity.current();
    let moved = 0;
    for (const worker of await deliveries.answeringWorkers(me)) {
      const rows = await inTransaction(deps.pool, async (tx) => {
        if (await isAlive(tx, worker)) return [];
        // only the reaper that wins this update fails the jobs: a question another worker took up since is not touched
        const { rows: orphans } = await tx.query<{ key: string; job_id: string; platform: ReplyPlatform }>(
          `UPDATE deliveries SET status = 'queued', worker_id = NULL WHERE worker_id = $1 AND status = 'answering' RETURNING key, job_id, platform`,
          [worker],
        );
        for (const platform of new Set(orphans.map((r) => r.platform))) {
          await deps.queue.failJobs(
            tx,
            platform,
            orphans.filter((r) => r.platform === platform).map((r) => r.job_id),
            `worker ${worker} stopped mid-answer`,
          );
        }
        return orphans;
      });
      if (rows.length)
        logger.warn(
          `jobs: worker ${worker} stopped mid-answer; ${rows.length} question${rows.length === 1 ? '' : 's'} handed to the next worker`,
        );
      moved += rows.length;
    }
    return moved;
  };

  /** Jobs fetched and never started (see AnswerQueue.unstartedJobs): failed in a transaction that re-checks the row, so a job started meanwhile is left alone. */
  const rescue = async (): Promise<number> => {
    let moved = 0;
    for (const job of await deps.queue.unstartedJobs(deps.unstartedAfterSeconds ?? 30)) {
      const failed = await inTransaction(deps.pool, async (tx) => {
        const { rowCount } = await tx.query(`SELECT 1 FROM deliveries WHERE key = $1 AND job_id = $2 AND status = 'queued' FOR UPDATE`, [
          job.key,
          job.id,
        ]);
        if (rowCount) await deps.queue.failJobs(tx, job.platform, [job.id], 'fetched by a worker that never started it');
        return rowCount ?? 0;
      });
      if (failed) logger.warn(`jobs: ${job.key} was fetched by a worker that never started it; handed to the next worker`);
      moved += failed;
    }
    return moved;
  };

  let lastPrune = 0;
  const timer = setInterval(() => {
    reap()
      .then(rescue)
      .then(async () => {
        if (Date.now() - lastPrune < 3_600_000) return;
        lastPrune = Date.now();
        await deliveries.prune();
      })
      .catch((error) => logger.warn(`jobs: checking for stopped workers: ${describeError(error)}`));
  }, deps.reapEveryMs ?? 3_000);
  timer.unref();

  return {
    reap,
    rescue,
    stop: async () => {
      clearInterval(timer);
    },
  };
}

async function produce(desk: DataDesk, job: AnswerJob, progress: ProgressReporter): Promise<Answer> {
  if (job.action.type === 'choose') return desk.choose(job.message, job.action.term, job.action.option, progress);
  return desk.answer(job.message, progress);
}
