// The edits the lead listed as known misses, each read as a person means it, in several wordings, and
// restated so the user sees which reading it was: "by year" after one month is that month of each year
// (and "compare with 2018" then puts each year beside that month of 2018); "and the fewest?" after a top 5
// is the bottom 5; a crime type left out ("excluding thefts"); a month range in the thread's year ("jan-mar");
// a ranking by a rate. Pure tests of the reader, the compiler's SQL shape and the narration.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { compilePlan } from '../../src/plan/compile.js';
import { narratePlan, understoodAs, type NarrationContext } from '../../src/plan/narrate.js';
import { type QueryPlanInput } from '../../src/plan/query-plan.js';
import { readInThread, readQuestion } from '../../src/plan/reader.js';

const { ctx, thread, bare, expectEdit } = threadReader('2025-06-30', { asEdit: true });
const nctx: NarrationContext = { areaNames: new Map([[25, 'Austin']]), dataFrom: '2001-01-01', dataTo: '2025-06-30', choices: {} };

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const count = { kind: 'count' } as const;
const everyYear = { from: '2001-01-01', to: '2025-07-01' };

describe('"by year" after one month: that month of each year, said so', () => {
  const aprilByYear: QueryPlanInput = { measure: count, filters: { types: ['THEFT'], months: [4] }, groupBy: ['year'] };

  it('whether April came in the question or as "and April?"', () => {
    for (const last of [thread('How many thefts in April 2019?'), thread('How many thefts in 2019?', 'and April?')])
      for (const text of ['by year', 'break it down by year', 'per year', 'by year instead']) expectEdit(last, text, aprilByYear);
  });

  it('the restatement says "April of each year"', () => {
    const p = thread('How many thefts in April 2019?', 'by year');
    expect(understoodAs(p, nctx)).toContain('in April of each year');
    const rows = [
      [2018, 174],
      [2019, 157],
    ];
    expect(narratePlan(p, { columns: ['year', 'incidents'], rows, rowCount: 2 }, nctx).headline).toMatch(/in April of each year/);
  });

  it('"compare with 2018" then puts each year\'s April beside April 2018, and says so', () => {
    for (const text of ['compare with 2018', 'compared to 2018', 'vs 2018']) {
      const p = thread('How many thefts in April 2019?', 'by year', text);
      expect(bare(p)).toEqual(bare({ ...aprilByYear, filters: { ...aprilByYear.filters, time: everyYear }, compareWith: Y(2018) }));
    }
    const p = thread('How many thefts in April 2019?', 'by year', 'compare with 2018');
    const { sql } = compilePlan(p, {}, { rollups: false });
    // the one year is counted once, in April, and set beside every year of the series
    expect(sql).toMatch(/CROSS JOIN b/);
    expect(sql).toMatch(/generate_series\(2001, 2025\)/);
    expect(sql).toMatch(/extract\(month FROM date\) IN \(4\)[\s\S]*year = 2018/);
    const rows = [
      [2017, 175, 174, 0.6],
      [2018, 174, 174, 0],
      [2019, 157, 174, -9.8],
    ];
    const n = narratePlan(p, { columns: ['year', 'a', 'b', 'change_pct'], rows, rowCount: 3 }, nctx);
    expect(n.narration).toBe('Each year beside April 2018: 174. 1 year above it, 1 below. Highest: 2017 with 175; lowest: 2019 with 157.');
  });
});

describe('"and the fewest?" after a top N: the bottom N', () => {
  it('keeps the N of the ranking, in every wording of the other end', () => {
    for (const [first, n] of [
      ['top 5 crime types in 2019', 5],
      ['top 3 districts for thefts in 2020', 3],
    ] as const) {
      const last = thread(first);
      for (const text of ['and the fewest?', 'the fewest', 'and the least?', 'now the bottom', 'and the lowest?'])
        expect(readInThread(text, last, ctx)).toMatchObject({ ok: true, plan: { top: { n, order: 'asc' } } });
    }
  });

  it('and back: "and the most?" after a bottom 5 is the top 5; a number said wins', () => {
    const bottom = thread('top 5 crime types in 2019', 'and the fewest?');
    expect(readInThread('and the most?', bottom, ctx)).toMatchObject({ ok: true, plan: { top: { n: 5, order: 'desc' } } });
    expect(readInThread('the 2 fewest', thread('top 5 crime types in 2019'), ctx)).toMatchObject({
      ok: true,
      plan: { top: { n: 2, order: 'asc' } },
    });
  });
});

describe('a crime type left out', () => {
  const f2019 = { types: ['THEFT'], exceptTypes: true as const, time: Y(2019) };

  it('"exclude theft", "excluding thefts", "not theft", "other than thefts", "except for theft" after a count', () => {
    const last = thread('crimes in 2019');
    for (const text of ['exclude theft', 'excluding thefts', 'not theft', 'other than thefts', 'except for theft', 'but not thefts'])
      expectEdit(last, text, { measure: count, filters: f2019 });
  });

  it('after thefts: everything but thefts; after thefts and batteries: batteries', () => {
    expectEdit(thread('thefts in 2019'), 'excluding thefts', { measure: count, filters: f2019 });
    expectEdit(thread('thefts and batteries in 2019 by month'), 'excluding thefts', {
      measure: count,
      filters: { types: ['BATTERY'], time: Y(2019) },
      groupBy: ['month'],
    });
  });

  it('several types at once, and in a whole question', () => {
    expectEdit(thread('top 5 crime types in 2019'), 'excluding thefts and batteries', {
      measure: count,
      filters: { types: ['THEFT', 'BATTERY'], exceptTypes: true, time: Y(2019) },
      groupBy: ['type'],
      top: { n: 5, order: 'desc' },
    });
    const r = readQuestion('how many crimes other than thefts in 2019?', ctx);
    expect(r).toMatchObject({ ok: true, plan: { filters: { types: ['THEFT'], exceptTypes: true } } });
  });

  it('compiles to a NOT IN and is restated as "crimes other than thefts"', () => {
    const p = thread('crimes in 2019', 'excluding thefts and batteries');
    expect(compilePlan(p, {}, { rollups: false }).sql).toMatch(/primary_type NOT IN \('THEFT', 'BATTERY'\)/);
    expect(compilePlan(thread('crimes in 2019', 'not theft'), {}, { rollups: false }).sql).toMatch(/primary_type <> 'THEFT'/);
    expect(understoodAs(p, nctx)[0]).toBe('crimes other than thefts or batteries');
    expect(narratePlan(p, { columns: ['incidents'], rows: [[5000]], rowCount: 1 }, nctx).headline).toBe(
      'Crimes other than thefts or batteries in 2019, all of Chicago: 5,000',
    );
  });
});

describe("a month range in the thread's year", () => {
  it('"jan-mar", "jan to mar", "january through march", "Jan-Mar" after 2019: January to March 2019', () => {
    const last = thread('thefts in 2019');
    for (const text of ['jan-mar', 'jan to mar', 'january through march', 'Jan-Mar', 'only jan-mar'])
      expectEdit(last, text, { measure: count, filters: { types: ['THEFT'], time: { from: '2019-01-01', to: '2019-04-01' } } });
  });

  it('in a whole question with its year', () => {
    for (const text of ['thefts jan-mar 2020', 'thefts from jan to mar 2020'])
      expect(readQuestion(text, ctx)).toMatchObject({ ok: true, plan: { filters: { time: { from: '2020-01-01', to: '2020-04-01' } } } });
  });
});

describe('a ranking by a rate', () => {
  it('"which district has the highest arrest rate", "top 5 types by arrest rate" read as a ranking of the share', () => {
    const last = thread('thefts in 2019');
    expect(readInThread('which district has the highest arrest rate', last, ctx)).toMatchObject({
      ok: true,
      plan: { measure: { kind: 'share', part: { arrest: true } }, groupBy: ['district'], top: { n: 1, order: 'desc' } },
    });
    expect(readInThread('top 5 types by arrest rate', thread('crimes in 2019'), ctx)).toMatchObject({
      ok: true,
      plan: { measure: { kind: 'share', part: { arrest: true } }, groupBy: ['type'], top: { n: 5, order: 'desc' } },
    });
  });
});

describe('an average per block by year', () => {
  it('"by year" after an average per block, and "per-block average by year" / "average per block by year" as a fragment', () => {
    const last = thread('What is the average number of burglaries per block in 2019?');
    const byYear: QueryPlanInput = { measure: { kind: 'average_per', per: 'block' }, filters: { types: ['BURGLARY'] }, groupBy: ['year'] };
    expectEdit(last, 'by year', byYear);
    for (const text of ['per-block average by year', 'average per block by year', 'the per block average by year'])
      expectEdit(thread('burglaries in 2019'), text, byYear);
  });

  it("compiles each year as the average over that year's blocks (the glossary choice), every year listed", () => {
    const p = thread('What is the average number of burglaries per block in 2019?', 'by year');
    const some = compilePlan(p, { per_block_average: 'blocks_with_incidents' }, { rollups: false }).sql;
    expect(some).toMatch(/SELECT year AS k1, block, count\(\*\) AS n/);
    expect(some).toMatch(/round\(avg\(n\), 2\)/);
    expect(some).toMatch(/generate_series\(\(SELECT min\(year\) FROM crimes\), \(SELECT max\(year\) FROM crimes\)\)/);
    const every = compilePlan(p, { per_block_average: 'all_blocks' }, { rollups: false }).sql;
    expect(every).toMatch(/count\(\*\)::numeric \/ \(SELECT count\(DISTINCT block\) FROM crimes\)/);
  });
});

describe('each group as a percent of the total', () => {
  it('"what percent of each", "as a percentage", "% of total" after a top 5 keep the ranking and add the percent', () => {
    const last = thread('top 5 crime types in 2021');
    for (const text of ['what percent of each', 'as a percentage', 'what percentage of each', 'as a percent'])
      expectEdit(last, text, {
        measure: count,
        filters: { time: Y(2021) },
        groupBy: ['type'],
        top: { n: 5, order: 'desc' },
        ofTotal: true,
      });
  });

  it('stays through a place and a new N, and goes with the count ("arrest rate")', () => {
    const p = thread('top 5 crime types in 2021', 'what percent of each', 'in district 11', 'show me top 10');
    expect(p).toMatchObject({ ofTotal: true, top: { n: 10 }, filters: { districts: [11] } });
    expect(thread('top 5 crime types in 2021', 'what percent of each', 'arrest rate').ofTotal).toBeUndefined();
  });

  it('compiles the percent over every group before the cut, and says so', () => {
    const p = thread('top 5 crime types in 2021', 'what percent of each');
    const { sql } = compilePlan(p, {}, { rollups: false });
    expect(sql).toMatch(/round\(100\.0 \* count\(\*\) \/ nullif\(sum\(count\(\*\)\) OVER \(\), 0\), 2\) AS pct_of_total/);
    expect(sql).toMatch(/LIMIT 5/);
    expect(understoodAs(p, nctx)).toContain('each as a percent of all');
    const rows = [
      ['THEFT', 24.28, 1796],
      ['BATTERY', 19.88, 1471],
    ];
    const two = { ...p, top: { n: 2, order: 'desc' as const } };
    expect(narratePlan(two, { columns: ['primary_type', 'pct_of_total', 'incidents'], rows, rowCount: 2 }, nctx).headline).toBe(
      'Crimes in 2021, all of Chicago: top 2 crime types, each as a percent of all crimes there',
    );
  });
});
