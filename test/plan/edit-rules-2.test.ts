// Edit rules the second blind held-out set (fixtures/benchmarks/conversations-heldout2.jsonl) found missing,
// each in several wordings: a replaced N said beside the new one, "the 3 with the fewest", "show all
// districts" of a cut ranking, a bare year after part of a year, a count said again as a share or an
// arrest rate. Pure tests of the reader (src/plan/read/follow-up.ts, work.ts).
import { describe, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { type QueryPlanInput } from '../../src/plan/query-plan.js';

const { thread, expectEdit } = threadReader('2025-06-30', { asEdit: true });

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const count = { kind: 'count' } as const;

describe('the ranking', () => {
  it('"top 5 instead of 10", "top 10 rather than 5", "show 3 instead of 5": the N said first', () => {
    const last = thread('top 10 location types for battery in 2017');
    const base: QueryPlanInput = { measure: count, filters: { types: ['BATTERY'], time: Y(2017) }, groupBy: ['location'] };
    expectEdit(last, 'top 5 instead of 10', { ...base, top: { n: 5, order: 'desc' } });
    expectEdit(last, 'top 3 rather than 10', { ...base, top: { n: 3, order: 'desc' } });
    expectEdit(thread('top 5 crime types in 2019'), 'top 10 instead of 5', {
      measure: count,
      filters: { time: Y(2019) },
      groupBy: ['type'],
      top: { n: 10, order: 'desc' },
    });
  });

  it('"the 3 with the fewest", "and the 5 with the most", "the 2 with the lowest"', () => {
    const last = thread('top 5 wards for theft in 2022');
    const base: QueryPlanInput = { measure: count, filters: { types: ['THEFT'], time: Y(2022) }, groupBy: ['ward'] };
    expectEdit(last, 'and the 3 with the fewest', { ...base, top: { n: 3, order: 'asc' } });
    expectEdit(last, 'the 2 with the lowest', { ...base, top: { n: 2, order: 'asc' } });
    expectEdit(last, 'and the 7 with the most', { ...base, top: { n: 7, order: 'desc' } });
  });

  it('"show all districts", "all districts please" after the one fewest: every district, no cut', () => {
    const last = thread('which district had the most burglaries in 2016', 'and the fewest?');
    for (const text of ['show all districts', 'all districts please', 'show me all districts'])
      expectEdit(last, text, { measure: count, filters: { types: ['BURGLARY'], time: Y(2016) }, groupBy: ['district'] });
  });
});

describe('the period', () => {
  it('a bare year after a month of a year is that month in the year said', () => {
    const april2020 = { from: '2020-04-01', to: '2020-05-01' };
    for (const last of [thread('how many thefts in 2019', 'and april?'), thread('thefts in April 2019')])
      for (const text of ['what about 2020', 'and 2020?', 'in 2020', 'how about 2020'])
        expectEdit(last, text, { measure: count, filters: { types: ['THEFT'], time: april2020 } });
    // its own year said again: the whole year
    expectEdit(thread('thefts in April 2019'), 'all of 2019', { measure: count, filters: { types: ['THEFT'], time: Y(2019) } });
    expectEdit(thread('thefts in April 2019'), 'and 2019?', {
      measure: count,
      filters: { types: ['THEFT'], time: Y(2019) },
    });
  });

  it('after a season or a quarter: the same stretch of the year said; after a whole year: that year', () => {
    expectEdit(thread('burglaries in 2019', 'the summer'), 'and 2021?', {
      measure: count,
      filters: { types: ['BURGLARY'], time: { from: '2021-06-01', to: '2021-09-01' } },
    });
    expectEdit(thread('burglaries in 2019', 'january to march'), 'and 2021?', {
      measure: count,
      filters: { types: ['BURGLARY'], time: { from: '2021-01-01', to: '2021-04-01' } },
    });
    expectEdit(thread('burglaries in 2019'), 'and 2021?', { measure: count, filters: { types: ['BURGLARY'], time: Y(2021) } });
  });
});

describe('a count said again as a share', () => {
  it('"as a share of all crimes", "as a percentage of all crimes" after thefts: thefts as a share of every crime', () => {
    for (const text of ['as a share of all crimes', 'as a percentage of all crimes', 'as a share of all incidents'])
      expectEdit(thread('how many thefts in 2019'), text, {
        measure: { kind: 'share', part: { types: ['THEFT'] } },
        filters: { time: Y(2019) },
      });
  });

  it('after crimes with an arrest or domestic ones: that flag is the part', () => {
    expectEdit(thread('how many crimes had an arrest in 2015'), 'as a share of all crimes', {
      measure: { kind: 'share', part: { arrest: true } },
      filters: { time: Y(2015) },
    });
    expectEdit(thread('how many domestic crimes in 2015'), 'as a percentage of all crimes', {
      measure: { kind: 'share', part: { domestic: true } },
      filters: { time: Y(2015) },
    });
  });

  it('"as an arrest rate" after a count of arrests: the rate over every incident in scope', () => {
    const last = thread('how many crimes were domestic in 2021', 'and how many of those had an arrest');
    for (const text of ['as an arrest rate', 'as arrest rate', 'arrest rate'])
      expectEdit(last, text, { measure: { kind: 'share', part: { arrest: true } }, filters: { domestic: true, time: Y(2021) } });
  });
});
