// Runs a queue's jobs in one process, `slots` at a time, on pg-boss 10's
// fetch/complete/fail. pg-boss 10's work() polls once per handler: with
// WORKER_CONCURRENCY 4 that was 4 fetches a second per queue while idle, and a
// question queued in this process woke all 4 (about 5 fetches per answer; one
// found the job). Here one loop fetches for the free slots at once (a batch of
// them, each job run and settled on its own): when this process queues a job
// (notify), when a slot frees after a full batch (more may wait), and every
// `pollMs` for jobs queued by other processes. The rest is pg-boss's: a job
// whose handler throws or outlives the job's expiry is failed (and retried per
// its queue), one that returns is completed.
import type PgBoss from 'pg-boss';
import { describeError } from '../core/errors.js';

export class JobDispatcher<T> {
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;
  /** set by notify(): a job was queued since the last fetch */
  private told = true;
  /** the last fetch filled every free slot: more may be waiting */
  private full = false;
  private lastFetch = 0;
  private wake = () => {};
  private readonly loop: Promise<void>;

  constructor(
    private readonly boss: PgBoss,
    private readonly queue: string,
    private readonly slots: number,
    private readonly handler: (job: PgBoss.Job<T>) => Promise<void>,
    private readonly o: { pollMs: number; onError: (error: unknown) => void },
  ) {
    this.loop = this.run();
  }

  /** A job was queued (in this process): fetch as soon as a slot is free. */
  notify(): void {
    this.told = true;
    this.wake();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const free = this.slots - this.running.size;
      const due = this.told || this.full || Date.now() - this.lastFetch >= this.o.pollMs;
      if (free > 0 && due) {
        this.told = false;
        this.lastFetch = Date.now();
        // pg-boss's fetch reports no error (it returns no jobs): the next poll tries again
        const jobs = await this.boss.fetch<T>(this.queue, { batchSize: free }).catch((error: unknown) => {
          this.o.onError(error);
          return [];
        });
        this.full = jobs.length === free;
        for (const job of jobs) this.start(job);
        continue;
      }
      // until a job is queued here, a slot frees, or the next poll
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(10, this.o.pollMs - (Date.now() - this.lastFetch)));
        this.wake = () => {
          clearTimeout(timer);
          this.wake = () => {};
          resolve();
        };
      });
    }
  }

  private start(job: PgBoss.Job<T>): void {
    const run = (async () => {
      try {
        await withinSeconds(this.handler(job), Number(job.expireInSeconds));
        await this.boss.complete(this.queue, job.id);
      } catch (error) {
        await this.boss.fail(this.queue, job.id, { message: describeError(error) });
      }
    })()
      .catch(this.o.onError)
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, run);
  }

  /** Fetches no more; waits up to `timeoutMs` for the jobs running, and fails those still running then (retried elsewhere). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(this.running.values()), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    for (const id of this.running.keys())
      await this.boss.fail(this.queue, id, { message: 'the worker stopped before this job ended' }).catch(this.o.onError);
  }
}

/** The handler's promise, or an error once the job's expiry has passed (as pg-boss's own workers do). */
function withinSeconds(work: Promise<void>, seconds: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the job ran past its expiry (${seconds} s)`)), seconds * 1000);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
