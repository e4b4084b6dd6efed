// A word the reader passes over (read/unknown-words.ts) is said in the reading's notes, which the answer shows
// among its assumptions; a refusal names it among the words it could not use. Nothing is dropped silently.
import { describe, expect, it } from 'vitest';
import { readInThread } from '../../src/plan/reader.js';
import { parsePlan } from '../../src/plan/query-plan.js';
import { threadReader } from '../helpers/reader.js';

const { ctx, thread } = threadReader('2024-12-31', { asEdit: true });

describe('words passed over are said', () => {
  it.each(['Honestly, how many thefts in 2020?', 'Basically how many thefts were there in 2020?'])('a whole question: %s', (text) => {
    const r = readInThread(text, undefined, ctx);
    expect(r.ok).toBe(true);
    expect(r.notes?.join(' ')).toMatch(/I did not use: "(Honestly|Basically)"/);
  });

  it('an edit of the thread: "Which five districts are carrying the most?"', () => {
    const r = readInThread('Which five districts are carrying the most?', thread('which district had the most thefts in 2021?'), ctx);
    expect(r.ok && parsePlan(r.plan).top).toEqual({ n: 5, order: 'desc' });
    expect(r.notes).toContain('I did not use: "carrying" (no meaning for the data that I know)');
  });

  it('a reading with nothing passed over has no such note', () => {
    const r = readInThread('how many thefts in 2020?', undefined, ctx);
    expect(r.notes ?? []).toEqual([]);
  });
});
