// A fragment that only makes sense against an earlier answer ("same for 2019", "robberies instead") in a thread
// with no answer yet is refused with that reason: read on its own it would count every crime of 2019.
import { describe, expect, it } from 'vitest';
import { readInThread } from '../../src/plan/reader.js';
import { parsePlan } from '../../src/plan/query-plan.js';
import { threadReader } from '../helpers/reader.js';

const { ctx, thread } = threadReader('2024-12-31', { asEdit: true });

describe('a fragment with no earlier answer', () => {
  it.each(['same for 2019', 'Same for 2019.', 'robberies instead', 'again for 2020', 'those with an arrest', 'and 2018 too'])(
    '%s: refused, nothing to build on',
    (text) => {
      const r = readInThread(text, undefined, ctx);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.reason).toMatch(/no earlier answer in this thread/);
      expect(!r.ok && r.suggestion).toMatch(/Ask the whole question/);
    },
  );

  it.each(['what about thefts in 2019?', 'only arrests in 2020', 'how many robberies in 2019?'])(
    '%s: read as a question of its own',
    (text) => {
      expect(readInThread(text, undefined, ctx).ok).toBe(true);
    },
  );

  it('with an earlier answer the same words edit it', () => {
    const r = readInThread('same for 2019', thread('how many thefts in 2020?'), ctx);
    expect(r.ok && parsePlan(r.plan).filters.types).toEqual(['THEFT']);
  });
});
