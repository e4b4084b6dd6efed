// The playground's reply sink tells a waiting page how far its question got
// through NOTIFY, one statement each: a step is told once it has lasted
// PROGRESS_AFTER_MS, a later step replaces one not yet told, and an answer
// quicker than that sends none (its end is told by the statement that finishes
// the delivery, not by the sink).
import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { PROGRESS_AFTER_MS, webOutbox } from '../../../src/channels/web/web-outbox.js';
import type { AnswerJob } from '../../../src/jobs/answer-job.js';
import type { DeliveryRow } from '../../../src/jobs/deliveries.js';
import { makeAnswer } from '../../../src/core/answer.js';

function notifyingPool() {
  const told: { key: string; step: string }[] = [];
  const pool = {
    query: async (text: string, values: unknown[]) => {
      expect(text).toContain('pg_notify');
      told.push(JSON.parse(values[1] as string));
      return { rows: [], rowCount: 1 };
    },
  };
  return { pool: pool as unknown as pg.Pool, told };
}

const job = {
  key: 'web:0123456789abcdef0123456789abcdef:1',
  message: { platform: 'web', threadId: 'web:t', text: 'How many thefts were reported in 2019?' },
  action: { type: 'answer' },
  reply: { platform: 'web' },
} as AnswerJob;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const answer = makeAnswer({ kind: 'error', route: 'sql', trace: [], retryable: true, message: 'x' });
const steps = { done: () => false, record: async () => undefined };

describe("the playground's reply sink", () => {
  it('an answer quicker than a step lasts sends no progress at all', async () => {
    const { pool, told } = notifyingPool();
    const sink = await webOutbox(pool, createMemoryLogger()).replies(job, {} as DeliveryRow);
    for (const step of ['Reading the schema', 'Writing the query', 'Checking the query', 'Running the query'] as const) sink.progress(step);
    await sink.deliver(answer, steps);
    await sleep(PROGRESS_AFTER_MS + 50);
    expect(told).toEqual([]);
  });

  it('a slow answer: the step current after each pause is told once, the ones replaced meanwhile never', async () => {
    const { pool, told } = notifyingPool();
    const sink = await webOutbox(pool, createMemoryLogger()).replies(job, {} as DeliveryRow);
    sink.progress('Reading the schema');
    sink.progress('Writing the query');
    await sleep(PROGRESS_AFTER_MS + 50);
    sink.progress('Writing the query'); // the same step again: not told twice
    await sleep(PROGRESS_AFTER_MS + 50);
    sink.progress('Running the query');
    await sleep(PROGRESS_AFTER_MS + 50);
    await sink.deliver(answer, steps);
    expect(told).toEqual([
      { key: job.key, step: 'Writing the query' },
      { key: job.key, step: 'Running the query' },
    ]);
  });

  it('a step not yet told when every attempt failed is not told after', async () => {
    const { pool, told } = notifyingPool();
    const sink = await webOutbox(pool, createMemoryLogger()).replies(job, {} as DeliveryRow);
    sink.progress('Running the query');
    await sink.giveUp('every attempt failed');
    await sleep(PROGRESS_AFTER_MS + 50);
    expect(told).toEqual([]);
  });
});
