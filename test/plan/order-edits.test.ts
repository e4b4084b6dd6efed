// Order edits of a grouped answer ("sort ascending", "lowest first", "alphabetically", "reverse the order"):
// read in several wordings against the thread's last plan, compiled to the ORDER BY a person means, restated
// in the headline; a single number has nothing to sort and says so rather than being refused as off-topic.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { compilePlan } from '../../src/plan/compile.js';
import { narratePlan } from '../../src/plan/narrate.js';
import { parsePlan, type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread, readQuestion } from '../../src/plan/reader.js';

const { ctx, thread } = threadReader('2025-06-30', { asEdit: false });

/** The plan after the edit, which must read as an edit that changes nothing but the order. */
function ordered(last: QueryPlan, text: string): QueryPlan {
  const r = readInThread(text, last, ctx);
  if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
  expect(r.edit, text).toBe(true);
  const plan = parsePlan(r.plan);
  const { order: _a, ...rest } = plan;
  const { order: _b, ...before } = last;
  expect(rest, text).toEqual(before);
  return plan;
}

const orderBy = (plan: QueryPlan) => compilePlan(plan, {}, { rollups: false }).sql.split('ORDER BY ').at(-1);

describe('order edits of a grouped answer', () => {
  const battery = thread('battery by district since 2020');

  it('"sort ascending", "lowest first", "smallest to largest", …: every district, fewest first', () => {
    for (const text of [
      'sort ascending',
      'ascending',
      'lowest first',
      'fewest first',
      'least first',
      'smallest to largest',
      'from lowest to highest',
      'can you sort it ascending',
      'in ascending order please',
    ]) {
      const p = ordered(battery, text);
      expect(p.order, text).toBe('measure_asc');
      expect(p.top, text).toBeUndefined();
    }
  });

  it('"sort descending", "most first", "highest first", "high to low": most first again', () => {
    const asc = thread('battery by district since 2020', 'sort ascending');
    for (const text of ['sort descending', 'most first', 'highest first', 'high to low', 'descending'])
      expect(ordered(asc, text).order, text).toBe('measure');
  });

  it('"reverse the order" flips the ranking either way', () => {
    for (const text of ['reverse the order', 'the other way round', 'flip the order', 'reverse it']) {
      expect(ordered(battery, text).order, text).toBe('measure_asc');
      expect(ordered(thread('battery by district since 2020', 'fewest first'), text).order, text).toBe('measure');
    }
  });

  it('"sort by name", "alphabetically", "in order of district": along the axis', () => {
    for (const text of ['sort by name', 'alphabetically', 'in alphabetical order', 'in order of district', 'sort them by name'])
      expect(ordered(battery, text).order, text).toBe('axis');
  });

  it('the order survives a later edit of the scope, and a cut still ranks most first', () => {
    const asc = thread('battery by district since 2020', 'sort ascending', 'in 2021');
    expect(asc.order).toBe('measure_asc');
    const top = thread('battery by district since 2020', 'sort ascending', 'now just the top 5');
    expect(orderBy(top)).toMatch(/^coalesce\(counts\.incidents, 0\) DESC/);
  });

  it('compiles each order: the measure ascending or descending, ties by the label; the axis alone', () => {
    expect(orderBy(thread('battery by district since 2020', 'sort ascending'))).toBe('coalesce(counts.incidents, 0) ASC, district');
    expect(orderBy(thread('battery by district since 2020', 'sort ascending', 'most first'))).toBe(
      'coalesce(counts.incidents, 0) DESC, district',
    );
    expect(orderBy(thread('battery by district since 2020', 'alphabetically'))).toBe('district');
    // along a time axis too, and beside a second period
    expect(orderBy(thread('thefts by year', 'fewest first'))).toMatch(/^coalesce\(counts\.incidents, 0\) ASC, axis1\.\w+$/);
    const compared = compilePlan(thread('thefts by district in 2019', 'compare with 2018', 'lowest first'), {}, { rollups: false }).sql;
    expect(compared).toMatch(/ORDER BY coalesce\(a\.incidents, 0\) ASC, axis1\.k1$/);
  });

  it('says the order in the headline', () => {
    const p = thread('battery by district since 2020', 'sort ascending');
    const rows = {
      columns: ['district', 'incidents'],
      rows: [
        [5, 10],
        [1, 20],
        [2, 30],
      ],
      rowCount: 3,
    };
    const out = narratePlan(p, rows, { areaNames: new Map(), choices: {} });
    expect(out.headline).toMatch(/by district .*, fewest first$/);
    expect(out.narration).toContain('Fewest: district 5 with 10');
    expect(
      narratePlan(thread('battery by district since 2020', 'alphabetically'), rows, { areaNames: new Map(), choices: {} }).headline,
    ).toMatch(/, in order of district$/);
  });

  it('a question said with its order reads it too', () => {
    const r = readQuestion('battery by district since 2020, fewest first', ctx);
    expect(r.ok && r.plan.order).toBe('measure_asc');
  });
});

describe('an order edit that cannot apply says why', () => {
  it('a single number: nothing to sort, in every wording', () => {
    const one = thread('how many thefts in 2019');
    for (const text of ['sort ascending', 'lowest first', 'reverse the order', 'alphabetically']) {
      const r = readInThread(text, one, ctx);
      expect(r.ok, text).toBe(false);
      expect(r.edit, text).toBe(true);
      if (!r.ok) expect(r.suggestion, text).toMatch(/^There is nothing to sort: the answer is a single number/);
    }
  });

  it('a top 5 asked fewest first points at the bottom 5; a series along time is not reversed silently', () => {
    const top = readInThread('sort ascending', thread('top 5 districts for theft in 2019'), ctx);
    expect(!top.ok && top.suggestion).toMatch(/ask for the bottom 5/);
    const series = readInThread('reverse the order', thread('thefts by year'), ctx);
    expect(!series.ok && series.suggestion).toMatch(/cannot be reversed yet/);
  });
});
