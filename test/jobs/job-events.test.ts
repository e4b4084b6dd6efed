// How a waiting receiver (the playground's) learns that its question ended,
// on real PostgreSQL: the statement that finishes the delivery tells it, at
// commit, so it reads the row once; a waiter whose LISTEN connection dropped
// is told to look at the row itself; the place in line and a recorded
// placeholder come in one read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAnswer } from '../../src/core/answer.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { Deliveries } from '../../src/jobs/deliveries.js';
import { JobEvents, type JobEvent } from '../../src/jobs/job-events.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/wait.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const admit = (key: string, userId = 'U1') =>
  Deliveries.admit(db.pool, { key, jobId: crypto.randomUUID(), platform: 'web', channel: `playground:${key}`, userId });

describe('job events', () => {
  it("a delivery's end is told to its waiter by the statement that ends it, answered or failed; other keys hear nothing", async () => {
    const events = new JobEvents(db.pool, createMemoryLogger());
    const deliveries = new Deliveries(db.pool);
    const heard: JobEvent[] = [];
    await admit('web:a:1');
    await admit('web:a:2');
    const stop = await events.subscribe('web:a:1', (e) => heard.push(e));
    expect(events.listening).toBe(true);
    await deliveries.finish('web:a:2', 'answered');
    await deliveries.finish('web:a:1', 'failed');
    await pollUntil(async () => heard.length > 0 || undefined, 5_000);
    expect(heard).toEqual([{ key: 'web:a:1', done: true }]);
    expect((await deliveries.get('web:a:1'))?.status).toBe('failed');
    stop();
    await events.close();
  });

  it('an answer kept by the finishing statement comes with the notice when it fits in one (8,000 bytes), and is on the row either way', async () => {
    const events = new JobEvents(db.pool, createMemoryLogger());
    const deliveries = new Deliveries(db.pool);
    const small = makeAnswer({ kind: 'error', route: 'sql', trace: [], retryable: true, message: 'x'.repeat(2_000) });
    const big = makeAnswer({ kind: 'error', route: 'sql', trace: [], retryable: true, message: 'y'.repeat(9_000) });
    const heard: JobEvent[] = [];
    for (const key of ['web:d:1', 'web:d:2']) {
      await admit(key);
      await events.subscribe(key, (e) => heard.push(e));
    }
    await deliveries.finish('web:d:1', 'answered', small);
    await deliveries.finish('web:d:2', 'answered', big);
    await pollUntil(async () => heard.length === 2 || undefined, 5_000);
    expect(heard).toEqual([
      { key: 'web:d:1', done: true, answer: small },
      { key: 'web:d:2', done: true },
    ]);
    expect((await deliveries.get('web:d:2'))?.answer).toEqual(big);
    expect((await deliveries.get('web:d:1'))?.status).toBe('answered');
    await events.close();
  });

  it('a waiter whose LISTEN connection was lost is told to look at the row itself, and told again once events are back', async () => {
    const events = new JobEvents(db.pool, createMemoryLogger());
    const heard: JobEvent[] = [];
    await events.subscribe('web:b:1', (e) => heard.push(e));
    await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'datadesk-jobs' AND datname = current_database()`,
    );
    await pollUntil(async () => heard.length > 0 || undefined, 5_000);
    expect(heard).toEqual([{ key: 'web:b:1', look: true }]);
    expect(events.listening).toBe(false);
    // the next subscriber listens again, and the earlier waiter is told to look (what ended meanwhile was not heard)
    await events.subscribe('web:b:2', () => undefined);
    expect(events.listening).toBe(true);
    expect(heard).toEqual([
      { key: 'web:b:1', look: true },
      { key: 'web:b:1', look: true },
    ]);
    await events.close();
  });

  it("the place in line: questions admitted before and still waiting, the asker's own being answered; and a recorded placeholder", async () => {
    const deliveries = new Deliveries(db.pool);
    await admit('web:c:1', 'U7');
    await admit('web:c:2', 'U8');
    await admit('web:c:3', 'U7');
    await db.pool.query(`UPDATE deliveries SET status = 'answered' WHERE key LIKE 'web:a:%' OR key LIKE 'web:b:%'`);
    await db.pool.query(`UPDATE deliveries SET status = 'answering' WHERE key = 'web:c:2'`);
    // c:1 waits; c:2 is answered for another asker: one ahead of c:3
    expect(await deliveries.placeInLine('web:c:3')).toEqual({ ahead: 1, placeholder: false });
    await db.pool.query(`UPDATE deliveries SET status = 'answering' WHERE key = 'web:c:1'`);
    // U7's own question being answered is ahead of their next one
    expect(await deliveries.placeInLine('web:c:3')).toEqual({ ahead: 1, placeholder: false });
    await deliveries.claimPlaceholder('web:c:3', { ts: '1.2' });
    expect(await deliveries.placeInLine('web:c:3')).toEqual({ ahead: 1, placeholder: true });
    expect(await deliveries.placeInLine('web:c:9')).toEqual({ ahead: 0, placeholder: false });
  });
});
