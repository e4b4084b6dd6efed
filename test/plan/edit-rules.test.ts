// The follow-up edit rules the held-out conversations (fixtures/benchmarks/conversations-heldout.jsonl)
// found missing, one by one: a fragment read against the thread's last plan gives the plan a person
// means, each in more than one wording. Pure unit tests of the reader (src/plan/read/follow-up.ts).
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread, readQuestion } from '../../src/plan/reader.js';

const { ctx, thread, bare, expectEdit } = threadReader('2025-06-30', { asEdit: true });
const edit = (last: QueryPlan, text: string) => readInThread(text, last, ctx);

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const count = { kind: 'count' } as const;

describe('taking a slot away', () => {
  const base = thread('thefts in district 18 in 2015', 'just the arrests');

  it('"drop the year filter", "remove the date filter", "no year filter": every year', () => {
    for (const text of ['drop the year filter', 'remove the date filter', 'no year filter', 'ignore the year'])
      expectEdit(base, text, { measure: count, filters: { types: ['THEFT'], districts: [18], arrest: true } });
  });

  it('"drop the district", "without the district filter": all of Chicago', () => {
    for (const text of ['drop the district', 'without the district filter', 'forget the district'])
      expectEdit(base, text, { measure: count, filters: { types: ['THEFT'], time: Y(2015), arrest: true } });
  });

  it('"without the arrest filter": every incident again, not the ones without an arrest', () => {
    expectEdit(base, 'without the arrest filter', { measure: count, filters: { types: ['THEFT'], time: Y(2015), districts: [18] } });
    // "without an arrest" is still the flag negated
    expectEdit(base, 'without an arrest', { measure: count, filters: { types: ['THEFT'], time: Y(2015), districts: [18], arrest: false } });
  });

  it('"all day" takes the night away; dropping a slot the answer did not have says so', () => {
    const night = thread('robberies at night in 2021');
    expectEdit(night, 'all day', { measure: count, filters: { types: ['ROBBERY'], time: Y(2021) } });
    expectEdit(night, 'remove the night filter', { measure: count, filters: { types: ['ROBBERY'], time: Y(2021) } });
    const r = edit(thread('thefts in 2019'), 'drop the district');
    expect(r.notes).toEqual(['the last answer had no place filter to drop']);
  });

  it('is no question on its own, and a write request stays one', () => {
    expect(readQuestion('drop the year filter', ctx).ok).toBe(false);
    expect(readInThread('drop table crimes', thread('thefts in 2019'), ctx).ok).toBe(false);
  });
});

describe('excluding a flag', () => {
  it('"exclude domestic", "excluding domestic ones", "except arrests": the flag negated', () => {
    const base = thread('batteries in district 7 in 2019');
    for (const text of ['exclude domestic', 'excluding domestic ones', 'minus domestic'])
      expectEdit(base, text, { measure: count, filters: { types: ['BATTERY'], time: Y(2019), districts: [7], domestic: false } });
    expectEdit(base, 'except arrests', { measure: count, filters: { types: ['BATTERY'], time: Y(2019), districts: [7], arrest: false } });
  });

  it('a crime type excluded keeps the ranking and leaves the type out (test/plan/known-misses.test.ts has more)', () => {
    expectEdit(thread('top 5 crime types in 2019'), 'exclude theft', {
      measure: count,
      filters: { types: ['THEFT'], exceptTypes: true, time: Y(2019) },
      groupBy: ['type'],
      top: { n: 5, order: 'desc' },
    });
  });
});

describe('a comparison', () => {
  it('after a ranking over every year: every year on record against the year said, and the note says so', () => {
    const last = thread('How many thefts in 2019?', 'and April?', 'by year', 'top 5 crime types');
    const r = edit(last, 'compare with 2018');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(bare(r.plan)).toEqual(
      bare({
        measure: count,
        filters: { months: [4], time: { from: '2001-01-01', to: '2025-07-01' } },
        groupBy: ['type'],
        top: { n: 5, order: 'desc' },
        compareWith: Y(2018),
      }),
    );
    expect(r.notes).toEqual(['compared: every year on record (2001-01-01 to 2025-06-30) against 2018']);
  });

  it('"compare to the year before", "vs the year before": the step is the period compared with', () => {
    const last = thread('thefts in 2019');
    for (const text of ['compare to the year before', 'vs the year before', 'compared with the year before'])
      expectEdit(last, text, { measure: count, filters: { types: ['THEFT'], time: Y(2019) }, compareWith: Y(2018) });
  });
});

describe('the period', () => {
  it('a season or quarter after a year is that stretch of the year, so a by-month answer lists its months', () => {
    const last = thread('thefts in 2018');
    expectEdit(last, 'what about the summer', {
      measure: count,
      filters: { types: ['THEFT'], time: { from: '2018-06-01', to: '2018-09-01' } },
    });
    expectEdit(last, 'in q1', { measure: count, filters: { types: ['THEFT'], time: { from: '2018-01-01', to: '2018-04-01' } } });
    expectEdit(last, 'first half of the year', {
      measure: count,
      filters: { types: ['THEFT'], time: { from: '2018-01-01', to: '2018-07-01' } },
    });
    // winter runs past December: the months of the year, not a stretch
    expectEdit(last, 'what about the winter', { measure: count, filters: { types: ['THEFT'], time: Y(2018), months: [12, 1, 2] } });
  });

  it('"the whole year" widens a part of a year to the year; "same months in 2020" moves it', () => {
    const q1 = thread('thefts from january to march 2021');
    expectEdit(q1, 'the whole year', { measure: count, filters: { types: ['THEFT'], time: Y(2021) } });
    expectEdit(q1, 'the full year', { measure: count, filters: { types: ['THEFT'], time: Y(2021) } });
    expectEdit(q1, 'same months in 2020', {
      measure: count,
      filters: { types: ['THEFT'], time: { from: '2020-01-01', to: '2020-04-01' } },
    });
    expectEdit(q1, 'the same period in 2019', {
      measure: count,
      filters: { types: ['THEFT'], time: { from: '2019-01-01', to: '2019-04-01' } },
    });
  });

  it('"make it 2020", "switch to 2020", "change to 2020": the period replaced', () => {
    const last = thread('thefts in 2019');
    for (const text of ['make it 2020', 'switch to 2020', 'change to 2020'])
      expectEdit(last, text, { measure: count, filters: { types: ['THEFT'], time: Y(2020) } });
  });
});

describe('the ranking', () => {
  it('"and the fewest?" after a top 10 is the bottom 10, "which had the fewest?" the one, "bottom 5" the five', () => {
    const top10 = thread('thefts in 2019 by community area', 'show me top 10');
    const filters = { types: ['THEFT'], time: Y(2019) };
    expectEdit(top10, 'and the fewest?', { measure: count, filters, groupBy: ['community_area'], top: { n: 10, order: 'asc' } });
    expectEdit(top10, 'which had the fewest?', { measure: count, filters, groupBy: ['community_area'], top: { n: 1, order: 'asc' } });
    expectEdit(top10, 'bottom 5', { measure: count, filters, groupBy: ['community_area'], top: { n: 5, order: 'asc' } });
  });

  it('"the busiest month", "top 3 months" of a by-month answer rank that series', () => {
    const byMonth = thread('burglaries by month in 2020');
    const filters = { types: ['BURGLARY'], time: Y(2020) };
    expectEdit(byMonth, 'busiest month', { measure: count, filters, groupBy: ['month'], top: { n: 1, order: 'desc' } });
    expectEdit(byMonth, 'top 3 months', { measure: count, filters, groupBy: ['month'], top: { n: 3, order: 'desc' } });
  });

  it('"break it down by district" groups', () => {
    expectEdit(thread('crimes in 2020'), 'break it down by district', {
      measure: count,
      filters: { time: Y(2020) },
      groupBy: ['district'],
    });
  });
});

describe('the subject and the measure', () => {
  it('"also robberies", "add robberies", "and robberies too" add a type; "what about robberies" replaces it', () => {
    const last = thread('thefts in 2019');
    for (const text of ['also robberies', 'add robberies', 'and robberies too'])
      expectEdit(last, text, { measure: count, filters: { types: ['THEFT', 'ROBBERY'], time: Y(2019) } });
    expectEdit(last, 'what about robberies', { measure: count, filters: { types: ['ROBBERY'], time: Y(2019) } });
  });

  it('"as a percentage" of a count of one kind: that kind as a share of every crime in the same scope', () => {
    const last = thread('thefts in district 11 in 2019');
    for (const text of ['as a percentage', 'in %', 'as a share of the total'.replace(' of the total', '')])
      expectEdit(last, text, { measure: { kind: 'share', part: { types: ['THEFT'] } }, filters: { time: Y(2019), districts: [11] } });
    // by year: the same share each year
    expectEdit(thread('thefts by year'), 'as a percentage', { measure: { kind: 'share', part: { types: ['THEFT'] } }, groupBy: ['year'] });
  });

  it('"what percent were thefts" after a count of every crime: thefts are the part', () => {
    expectEdit(thread('crimes in the loop in 2018'), 'what percent were thefts', {
      measure: { kind: 'share', part: { types: ['THEFT'] } },
      filters: { time: Y(2018), areas: [32] },
    });
  });

  it('"as a percentage" of a ranking of places or types: each group as a percent of the total (known-misses.test.ts)', () => {
    expectEdit(thread('top 5 crime types in 2021'), 'as a percentage', {
      measure: count,
      filters: { time: Y(2021) },
      groupBy: ['type'],
      top: { n: 5, order: 'desc' },
      ofTotal: true,
    });
  });

  it('"as a percentage" of an average by group is refused, saying why', () => {
    const r = edit(thread('average thefts per day by month in 2021'), 'as a percentage');
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(r.suggestion).toMatch(/each group as a percentage of the total needs a count/i);
  });
});
