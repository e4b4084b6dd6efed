// Meanings of follow-ups from the fourth blind held-out set (fixtures/benchmarks/conversations-heldout4.jsonl):
// "for every year since 2010" is a series, "the citywide rate" lets the ranking by place go, "as a
// percentage of all crimes (that year)" is the share of the thread's count. Pure tests of the reader.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx, thread, threadWithBefore, bare, expectEdit } = threadReader('2025-12-31', { asEdit: false });

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const since = (y: number) => ({ from: `${y}-01-01`, to: '2026-01-01' });
const arrestRate = { kind: 'share', part: { arrest: true } } as const;

describe('"every year" with a period: each year of it', () => {
  it('after an arrest rate in 2015, "show it for every year since 2010" is the rate for each year', () => {
    const last = thread('What was the arrest rate for narcotics cases in 2015?');
    const series = { measure: arrestRate, filters: { types: ['NARCOTICS'], time: since(2010) }, groupBy: ['year'] } as const;
    for (const text of [
      'Show it for every year since 2010.',
      'every year since 2010',
      'for each year since 2010',
      'year by year since 2010',
      'per year since 2010',
      'show every year since 2010',
    ])
      expectEdit(last, text, series);
  });

  it('"for all years" with no period still lets the year go', () => {
    const last = thread('What was the arrest rate for narcotics cases in 2015?');
    expectEdit(last, 'for all years', { measure: arrestRate, filters: { types: ['NARCOTICS'] } });
  });
});

describe('"citywide" after a ranking by place: one figure for the city', () => {
  const last = () => thread('What was the overall arrest rate in 2024?', 'Break it down by district.', 'Which district was lowest?');
  it('compared with another year, the grouping and its ranking let go', () => {
    const expected = { measure: arrestRate, filters: { time: Y(2024) }, compareWith: Y(2019) } as const;
    for (const text of [
      'How did the citywide rate compare with 2019?',
      'how did the rate for the whole city compare with 2019',
      'citywide compared with 2019',
    ])
      expectEdit(last(), text, expected);
  });
  it('"citywide" alone: the city\'s rate', () => {
    expectEdit(last(), 'and citywide?', { measure: arrestRate, filters: { time: Y(2024) } });
  });
  it('"all districts" after the lowest still lists every district', () => {
    expectEdit(last(), 'show all districts', { measure: arrestRate, filters: { time: Y(2024) }, groupBy: ['district'] });
  });
});

describe('"as a percentage of all crimes" of the thread\'s count', () => {
  it('arrests in 2022: the arrest rate that year, in several wordings', () => {
    const last = thread('How many crimes led to an arrest in 2022?');
    for (const text of [
      'What is that as a percentage of all crimes that year?',
      'show that as a share of all crimes in that year',
      "what's that as a percentage of all crimes",
      'as a percentage of all crimes the same year',
    ])
      expectEdit(last, text, { measure: arrestRate, filters: { time: Y(2022) } });
  });

  it('a burglary trend (even after its worst year): the burglary share of all crimes for each year', () => {
    const expected = {
      measure: { kind: 'share', part: { types: ['BURGLARY'] } },
      filters: { time: since(2015) },
      groupBy: ['year'],
    } as const;
    const series = thread('Give me the trend for burglaries since 2015.');
    for (const text of [
      'Show the trend as a percentage of all crimes.',
      'show that as a share of all crimes',
      'as a percentage of all crimes',
    ])
      expectEdit(series, text, expected);
    // after the worst year, "the trend" is the series again; "that" is still the worst year
    const worst = thread('Give me the trend for burglaries since 2015.', 'Which year was worst?');
    for (const text of ['Show the trend as a percentage of all crimes.', 'the trend as a share of all crimes'])
      expectEdit(worst, text, expected);
    expectEdit(worst, 'show that as a share of all crimes', { ...expected, top: { n: 1, order: 'desc' } });
  });

  it('the top 5 types in 2022: each type as a percentage of all crimes that year', () => {
    const last = thread('How many crimes were reported citywide in 2022?', 'What were the top 5 crime types?');
    for (const text of ['Show those as a percentage of all crimes that year.', 'show them as a percentage of all crimes'])
      expectEdit(last, text, {
        measure: { kind: 'count' },
        filters: { time: Y(2022) },
        groupBy: ['type'],
        top: { n: 5, order: 'desc' },
        ofTotal: true,
      });
  });

  it('"that year" in a question on its own (no thread) is not read as a period', () => {
    const r = readInThread('how many thefts were there that year?', undefined, ctx);
    expect(r.ok).toBe(false);
  });
});

describe('"the totals" of a series: one figure per period', () => {
  const monthly = () => thread('How many domestic battery cases were there in 2020?', 'Break it down by month.', 'What about 2019?');
  const base = { measure: { kind: 'count' }, filters: { types: ['BATTERY'], domestic: true } } as const;
  it('"compare the 2019 and 2020 totals" after a by-month answer: the two years\' totals, no months', () => {
    for (const text of ['Compare the 2019 and 2020 totals.', 'compare the totals for 2019 and 2020'])
      expectEdit(monthly(), text, { ...base, filters: { ...base.filters, time: Y(2020) }, compareWith: Y(2019) });
  });
  it('"what\'s the total?" after a by-month answer: the year\'s total', () => {
    expectEdit(monthly(), "what's the total?", { ...base, filters: { ...base.filters, time: Y(2019) } });
  });
  it('"totals by district": a new grouping, not one total', () => {
    expectEdit(monthly(), 'totals by district', { ...base, filters: { ...base.filters, time: Y(2019) }, groupBy: ['district'] });
  });
});

describe('a comparison done again for other types, one row per type', () => {
  it('"do it for robberies and assaults in district 4, by crime type" keeps 2021 against 2022', () => {
    const last = thread('Robberies in district 3: 2021 versus 2022?', 'Same comparison for district 4.');
    const expected = {
      measure: { kind: 'count' },
      filters: { types: ['ROBBERY', 'ASSAULT'], districts: [4], time: Y(2021) },
      groupBy: ['type'],
      compareWith: Y(2022),
    } as const;
    for (const text of [
      'do it for robberies and assaults in district 4, by crime type',
      'do the same for robberies and assaults in district 4 by crime type',
      'and for robberies and assaults, by crime type',
    ])
      expectEdit(last, text, expected);
  });
});

describe('"both": the two answers before, side by side', () => {
  it('Lakeview then Logan Square, "both by year since 2019": years with a column for each', () => {
    const { last, before } = threadWithBefore('robberys in lakeview 2021', 'and logan square');
    for (const text of ['both by year since 2019', 'both of them by year since 2019']) {
      const r = readInThread(text, last, ctx, before);
      if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)}`);
      expect(bare(r.plan), text).toEqual(
        bare({
          measure: { kind: 'count' },
          filters: { types: ['ROBBERY'], areas: [6], time: since(2019) },
          groupBy: ['year'],
          versus: { areas: [22] },
        }),
      );
    }
  });
  it('thefts then battery, "both by month": a column for each type', () => {
    const { last, before } = threadWithBefore('thefts in 2021', 'and battery');
    const r = readInThread('both by month', last, ctx, before);
    if (!r.ok) throw new Error('refused');
    expect(bare(r.plan)).toEqual(
      bare({
        measure: { kind: 'count' },
        filters: { types: ['THEFT'], time: Y(2021) },
        groupBy: ['month'],
        versus: { types: ['BATTERY'] },
      }),
    );
  });
  it('two answers that differ in more than one slot: "both" is not placed', () => {
    const { last, before } = threadWithBefore('thefts in lakeview in 2021', 'battery in logan square');
    expect(readInThread('both by month', last, ctx, before).ok).toBe(false);
  });
});

describe('a share of a type after the top types', () => {
  it('"what percentage of all Humboldt Park crimes that year were thefts?": one share, not one per type', () => {
    const last = thread(
      'How many crimes were reported in Austin in 2022?',
      'What were the top 5 crime types there?',
      'How about Humboldt Park?',
    );
    expectEdit(last, 'What percentage of all Humboldt Park crimes that year were thefts?', {
      measure: { kind: 'share', part: { types: ['THEFT'] } },
      filters: { areas: [23], time: Y(2022) },
    });
  });
});

describe('"the previous N years" after the last N years: the N years right before', () => {
  it('after robberies over the last 3 years (2023-2025): 2020-2022, not the same years again', () => {
    const last = thread('How many robberies in total over the last 3 years?');
    for (const text of ['and the previous 3 years?', 'And in the 3 years before that?'])
      expectEdit(last, text, {
        measure: { kind: 'count' },
        filters: { types: ['ROBBERY'], time: { from: '2020-01-01', to: '2023-01-01' } },
      });
  });
  it('asked on its own, "the previous 3 years" is still the last three', () => {
    const r = readInThread('How many robberies in the previous 3 years?', undefined, ctx);
    if (!r.ok) throw new Error('refused');
    expect(bare(r.plan).filters.time).toEqual({ from: '2023-01-01', to: '2026-01-01' });
  });
});
