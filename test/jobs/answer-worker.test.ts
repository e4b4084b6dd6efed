// The worker's rules on real PostgreSQL, through the playground's queue (its
// sink needs no platform): a question whose job a worker fetched and never
// started is answered by the next worker; a question whose every attempt
// fails ends as 'failed' and its asker is told so, not left waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataDesk } from '../../src/agents/desk.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { answerQueue } from '../../src/jobs/answer-job.js';
import type { Jobs } from '../../src/jobs/runtime.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { testJobs } from '../helpers/jobs.js';
import { pollUntil } from '../helpers/wait.js';

let db: TestDatabase;
const runtimes: Jobs[] = [];
const question = (key: string, text = 'How many thefts were reported in 2019?') => ({
  key, message: { platform: 'web' as const, threadId: `web:${key}`, channel: 'playground', text }, action: { type: 'answer' as const }, reply: { platform: 'web' as const },
});
const row = async (key: string) => (await db.pool.query('SELECT status, attempts, answer FROM deliveries WHERE key = $1', [key])).rows[0];

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 2_000);
});
afterAll(async () => {
  for (const r of runtimes) await r.stop();
  await db?.drop();
});

describe('answer workers', () => {
  it('a job fetched by a worker that died before starting it is answered by the next worker', async () => {
    const { desk, logger } = testDesk(db);
    const receiver = await testJobs(db, desk, logger, { work: false });
    runtimes.push(receiver);
    expect(await receiver.queue.enqueue(question('web:fetched-then-died'))).toBe(true);
    // a worker fetches it (the job is active) and dies before taking the question
    const fetched = await receiver.queue.boss.fetch(answerQueue('web'));
    expect(fetched).toHaveLength(1);
    expect((await row('web:fetched-then-died')).status).toBe('queued');
    const worker = await testJobs(db, desk, createMemoryLogger(), { unstartedAfterSeconds: 1, reapEveryMs: 500 });
    runtimes.push(worker);
    const answered = await pollUntil(async () => {
      const r = await row('web:fetched-then-died');
      return r.status === 'answered' ? r : undefined;
    }, 20_000, 'the question answered by the next worker');
    expect(answered.answer).toMatchObject({ kind: 'result', headline: expect.stringMatching(/^Thefts in 2019/) });
  });

  it('a question whose every attempt fails ends as failed, and the asker is told', async () => {
    const logger = createMemoryLogger();
    const broken = { answer: async () => { throw new Error('the agent broke'); }, choose: async () => { throw new Error('the agent broke'); } } as unknown as DataDesk;
    const jobs = await testJobs(db, broken, logger, { settings: { retries: 1 } });
    runtimes.push(jobs);
    expect(await jobs.queue.enqueue(question('web:always-fails'))).toBe(true);
    expect(await jobs.queue.enqueue(question('web:always-fails'))).toBe(false);
    const failed = await pollUntil(async () => {
      const r = await row('web:always-fails');
      return r.status === 'failed' ? r : undefined;
    }, 30_000, 'the question marked failed');
    expect(failed.attempts).toBe(2);
    expect(logger.lines.some((l) => l.includes('web:always-fails: every attempt failed; telling the asker'))).toBe(true);
  });
});
