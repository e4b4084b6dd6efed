// The dispatcher a process runs its answer jobs with (job-dispatcher.ts), over
// a queue kept in memory with pg-boss's fetch/complete/fail: each job runs
// once and is settled on its own, at most `slots` at a time; a job queued in
// this process is fetched once however many slots are free, and nothing is
// fetched again when the queue was found empty until a job is queued or the
// poll comes round.
import { describe, expect, it } from 'vitest';
import type PgBoss from 'pg-boss';
import { JobDispatcher } from '../../src/jobs/job-dispatcher.js';

/** A queue in memory with the three calls the dispatcher makes, and what each was called with. */
function memoryQueue() {
  const waiting: PgBoss.Job<string>[] = [];
  const fetches: number[] = [];
  const completed: string[] = [];
  const failed: { id: string; message: string }[] = [];
  let next = 0;
  const boss = {
    fetch: async (_name: string, o: { batchSize: number }) => {
      fetches.push(o.batchSize);
      return waiting.splice(0, o.batchSize);
    },
    complete: async (_name: string, id: string) => void completed.push(id),
    fail: async (_name: string, id: string, data: { message: string }) => void failed.push({ id, message: data.message }),
  };
  const add = (data: string, expireInSeconds = 60) => {
    const id = `job-${++next}`;
    waiting.push({ id, name: 'answer-web', data, expireInSeconds });
    return id;
  };
  return { boss: boss as unknown as PgBoss, add, fetches, completed, failed, waiting };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
  }
}

describe('the job dispatcher', () => {
  it('fetches a job queued here once, with every free slot in one batch, and not again when the queue was empty', async () => {
    const q = memoryQueue();
    const ran: string[] = [];
    const d = new JobDispatcher<string>(q.boss, 'answer-web', 4, async (job) => void ran.push(job.data), {
      pollMs: 60_000,
      onError: (e) => {
        throw e;
      },
    });
    await until(() => q.fetches.length === 1); // the first look, at start: empty
    for (const question of ['a', 'b', 'c']) {
      const id = q.add(question);
      d.notify();
      await until(() => q.completed.includes(id));
    }
    expect(ran).toEqual(['a', 'b', 'c']);
    // one fetch per question queued, each asking for the 4 free slots; none after a job ended on an empty queue
    expect(q.fetches).toEqual([4, 4, 4, 4]);
    await sleep(50);
    expect(q.fetches).toHaveLength(4);
    await d.stop(1_000);
  });

  it('runs at most `slots` at once, and fetches again when a slot frees after a full batch', async () => {
    const q = memoryQueue();
    let running = 0;
    let most = 0;
    const d = new JobDispatcher<string>(
      q.boss,
      'answer-web',
      3,
      async () => {
        running++;
        most = Math.max(most, running);
        await sleep(20);
        running--;
      },
      { pollMs: 60_000, onError: () => undefined },
    );
    await until(() => q.fetches.length === 1);
    for (let i = 0; i < 10; i++) q.add(`q${i}`);
    d.notify();
    await until(() => q.completed.length === 10);
    expect(most).toBe(3);
    expect(new Set(q.completed).size).toBe(10);
    // a batch of 3, then one fetch as each slot frees while more wait: never one fetch per slot per job and more
    expect(q.fetches.length).toBeLessThanOrEqual(11);
    await d.stop(1_000);
  });

  it('fails a job whose handler throws or outlives its expiry, with the reason, and completes the others', async () => {
    const q = memoryQueue();
    const d = new JobDispatcher<string>(
      q.boss,
      'answer-web',
      2,
      async (job) => {
        if (job.data === 'throws') throw new Error('the database went away');
        if (job.data === 'hangs') await sleep(5_000);
      },
      { pollMs: 60_000, onError: () => undefined },
    );
    const throws = q.add('throws');
    const hangs = q.add('hangs', 0.05);
    const fine = q.add('fine');
    d.notify();
    await until(() => q.failed.length === 2 && q.completed.length === 1);
    expect(q.completed).toEqual([fine]);
    expect(q.failed).toContainEqual({ id: throws, message: expect.stringContaining('the database went away') });
    expect(q.failed).toContainEqual({ id: hangs, message: 'the job ran past its expiry (0.05 s)' });
    await d.stop(1_000);
  });

  it('looks for jobs queued by other processes at each poll', async () => {
    const q = memoryQueue();
    const d = new JobDispatcher<string>(q.boss, 'answer-web', 1, async () => undefined, { pollMs: 100, onError: () => undefined });
    const id = q.add('from another process'); // no notify
    await until(() => q.completed.includes(id), 1_000);
    await d.stop(1_000);
  });

  it('stops fetching at stop, waits for the job running, and fails one still running when the wait is over', async () => {
    const q = memoryQueue();
    const d = new JobDispatcher<string>(q.boss, 'answer-web', 2, async (job) => void (await sleep(job.data === 'slow' ? 5_000 : 30)), {
      pollMs: 60_000,
      onError: () => undefined,
    });
    const quick = q.add('quick');
    const slow = q.add('slow');
    d.notify();
    await until(() => q.waiting.length === 0);
    const fetched = q.fetches.length;
    await d.stop(200);
    expect(q.completed).toEqual([quick]);
    expect(q.failed).toEqual([{ id: slow, message: 'the worker stopped before this job ended' }]);
    q.add('after stop');
    d.notify();
    await sleep(30);
    expect(q.fetches).toHaveLength(fetched);
  });
});
