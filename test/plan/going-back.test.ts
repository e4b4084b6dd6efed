// Going back in a thread: "undo that" is the answer before the last; "going back to all burglaries" takes
// away what narrowed the subject; "extend it to 2020" lengthens the thread's period at one end.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { parsePlan, type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx } = threadReader('2025-06-30', { asEdit: false });

/** Each plan of the thread, in order, every text read with the answer before the last as the agent passes it. */
function plans(...texts: string[]): QueryPlan[] {
  const out: QueryPlan[] = [];
  for (const text of texts) {
    const r = readInThread(text, out.at(-1), ctx, out.length > 1 ? out.at(-2) : undefined);
    if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
    out.push(parsePlan(r.plan));
  }
  return out;
}

describe('undo', () => {
  it('is the plan of the answer before the last, in several wordings, said in the notes', () => {
    for (const text of [
      'undo that',
      'undo',
      'Go back',
      'scratch that',
      'oops, undo the last change',
      'never mind that',
      'take that back.',
    ]) {
      const p = plans('which community area had the most robberies since 2015', 'top 4', 'only with an arrest', text);
      expect(p[3], text).toEqual(p[1]);
      expect(p[3].filters.arrest, text).toBeUndefined();
      expect(p[3].top, text).toEqual({ n: 4, order: 'desc' });
    }
    const r = readInThread('undo that', plans('thefts in 2019', 'in Austin')[1], ctx, plans('thefts in 2019')[0]);
    expect(r.ok && r.notes?.[0]).toMatch(/^undone: back to the answer before the last, .*thefts.*2019/i);
  });

  it('with nothing before, or a free-SQL answer before, says so instead', () => {
    const only = readInThread('undo that', plans('thefts in 2019')[0], ctx, undefined);
    expect(only.ok).toBe(false);
    expect(!only.ok && only.suggestion).toMatch(/no earlier answer/);
    const free = readInThread('undo', plans('thefts in 2019')[0], ctx, null);
    expect(!free.ok && free.suggestion).toMatch(/ask it again in full/);
    // not an undo: a question of its own that says "back"
    expect(readInThread('thefts in 2019', plans('robberies in 2018')[0], ctx, undefined).ok).toBe(true);
  });
});

describe('back to all of a subject', () => {
  it('takes away the location (and the flags) that narrowed it, keeping the grouping and the ranking', () => {
    for (const text of ['going back to all burglaries', 'back to all burglaries', 'ok, go back to all burglaries']) {
      const p = plans('burglary by year', 'only in residences', 'which year was highest', 'and lowest', text);
      expect(p[4].filters, text).toEqual({ types: ['BURGLARY'] });
      expect(p[4].groupBy, text).toEqual(['year']);
      expect(p[4].top, text).toEqual({ n: 1, order: 'asc' });
    }
    const r = readInThread('back to all thefts', plans('thefts in 2019 with an arrest')[0], ctx);
    expect(r.ok && parsePlan(r.plan).filters).toMatchObject({ types: ['THEFT'], time: { from: '2019-01-01' } });
    expect(r.ok && r.notes?.join()).toMatch(/without the arrest filter/);
  });
});

describe('extend the period', () => {
  it('lengthens the thread period at the end said, keeping the rest', () => {
    for (const text of ['extend it to 2020', 'extend that through 2020', 'and extend to 2020']) {
      const p = plans('battery per year between 2010 and 2015', 'compare with assault', 'only domestic', text);
      expect(p[3].filters.time, text).toEqual({ from: '2010-01-01', to: '2021-01-01' });
      expect(p[3].versus, text).toEqual({ types: ['ASSAULT'] });
      expect(p[3].filters.domestic, text).toBe(true);
    }
    expect(plans('thefts per year from 2010 to 2015', 'extend it back to 2005')[1].filters.time).toEqual({
      from: '2005-01-01',
      to: '2016-01-01',
    });
  });
});
