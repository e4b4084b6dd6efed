// Phrasebook and vocabulary words of the fourth blind set (fixtures/benchmarks/conversations-heldout4.jsonl),
// each in several wordings: "break that out by", "numbers", "the best", "whole city", "start it from",
// "that year", "which five had the fewest", "put X next to it / each month", "one row per". Words that
// change the meaning and are not understood are still refused.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx, thread } = threadReader('2025-12-31', { asEdit: false });

/** The words refused in the last text of the thread (the earlier ones must read). */
function refusedWords(...texts: string[]): string[] {
  const last = thread(...texts.slice(0, -1));
  const r = readInThread(texts[texts.length - 1], last, ctx);
  if (r.ok) throw new Error(`"${texts[texts.length - 1]}" was read: ${JSON.stringify(r.plan)}`);
  return r.unplaced;
}

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const time = (p: QueryPlan) => p.filters.time && { from: p.filters.time.from, to: p.filters.time.to };
const compared = (p: QueryPlan) => p.compareWith && { from: p.compareWith.from, to: p.compareWith.to };

describe('a grouping said as "break that out by", "split that by", "one row per"', () => {
  it('groups by what follows, keeping the thread', () => {
    for (const [t, g] of [
      ['Break that out by community area.', 'community_area'],
      ['break it out by district', 'district'],
      ['Break them out by month', 'month'],
      ['split that by district', 'district'],
      ['split it up by ward', 'ward'],
      ['one row per district', 'district'],
      ['a row for each district', 'district'],
    ] as const) {
      const p = thread('How many robberies have been reported since 2018?', t);
      expect(p.groupBy, t).toEqual([g]);
      expect(p.filters.types, t).toEqual(['ROBBERY']);
      expect(time(p), t).toEqual({ from: '2018-01-01', to: '2026-01-01' });
    }
  });

  it('"one row per crime type": a row per type, beside the types listed', () => {
    const p = thread('Robberies in district 3: 2021 versus 2022?', 'one row per crime type');
    expect(p.groupBy).toEqual(['type']);
    expect(thread('thefts and batteries in 2022', 'one row for each crime type').groupBy).toEqual(['type']);
  });

  it('"break that out" with no grouping, or a grouping the reader does not know, is still refused', () => {
    expect(refusedWords('robberies in 2019', 'break that out')).toContain('break');
    expect(refusedWords('robberies in 2019', 'break that out by officer')).toContain('officer');
  });
});

describe('"numbers": counts', () => {
  it('"yearly numbers", "the yearly numbers since 2015": counts by year', () => {
    const first = thread('Give me yearly theft numbers since 2020.');
    expect(first.measure).toEqual({ kind: 'count' });
    expect(first.groupBy).toEqual(['year']);
    expect(time(first)).toEqual({ from: '2020-01-01', to: '2026-01-01' });
    const edit = thread('How many narcotics arrests were made in district 15 in 2018?', 'Show the yearly numbers since 2015.');
    expect(edit.groupBy).toEqual(['year']);
    expect(edit.filters).toMatchObject({ types: ['NARCOTICS'], districts: [15], arrest: true });
    expect(time(edit)).toEqual({ from: '2015-01-01', to: '2026-01-01' });
  });

  it('"the biggest numbers", "the highest numbers": the most; "the lowest numbers": the fewest', () => {
    const base = ['robberies since 2018', 'by community area'];
    for (const t of ['Which five neighborhoods saw the biggest numbers?', 'which 5 areas had the highest numbers'])
      expect(thread(...base, t).top, t).toEqual({ n: 5, order: 'desc' });
    expect(thread(...base, 'which 3 had the lowest numbers').top).toEqual({ n: 3, order: 'asc' });
  });
});

describe('a number word before "had the fewest / most"', () => {
  it('"which five had the fewest?", "which 5 had the fewest", "which three saw the most": the N', () => {
    const base = ['robberies since 2018', 'by community area', 'top 10'];
    expect(thread(...base, 'Which five had the fewest?').top).toEqual({ n: 5, order: 'asc' });
    expect(thread(...base, 'which 5 had the fewest').top).toEqual({ n: 5, order: 'asc' });
    expect(thread(...base, 'which three saw the most?').top).toEqual({ n: 3, order: 'desc' });
    expect(thread(...base, 'the 4 with the fewest').top).toEqual({ n: 4, order: 'asc' });
  });
});

describe('"the best" after "which year was worst": the fewest', () => {
  it('reads the other end of the ranking', () => {
    const base = ['Give me the trend for burglaries since 2015.', 'Which year was worst?'];
    expect(thread(...base).top).toEqual({ n: 1, order: 'desc' });
    for (const t of ['And the best?', 'the best?', 'which was best?']) expect(thread(...base, t).top, t).toEqual({ n: 1, order: 'asc' });
  });

  it('"best" followed by more words is not guessed ("the best arrest rate")', () => {
    expect(refusedWords('arrest rate by district in 2024', 'which had the best arrest rate')).toContain('best');
  });
});

describe('"whole city", "for the whole city", "across the city": the place filter taken away', () => {
  it('keeps the type, the year and the grouping', () => {
    for (const t of ['whole city', 'for the whole city', 'entire city', 'across the city', 'citywide', 'same for the whole city']) {
      const p = thread('burglries in district 9 2020', 'by month', t);
      expect(p.filters.districts, t).toBeUndefined();
      expect(p.filters.types, t).toEqual(['BURGLARY']);
      expect(p.groupBy, t).toEqual(['month']);
      expect(time(p), t).toEqual(Y(2020));
    }
  });
});

describe('"start it from 2016 instead", "begin in 2016": since then, replacing the start', () => {
  it('keeps the grouping, the comparison and the flags', () => {
    const base = ['Give me yearly theft numbers since 2020.', 'Put battery next to it.', 'Only the ones that ended in an arrest.'];
    for (const t of ['Start it from 2016 instead.', 'start from 2016', 'begin in 2016', 'start it in 2016 instead']) {
      const p = thread(...base, t);
      expect(time(p), t).toEqual({ from: '2016-01-01', to: '2026-01-01' });
      expect(p.groupBy, t).toEqual(['year']);
      expect(p.versus, t).toEqual({ types: ['BATTERY'] });
      expect(p.filters.arrest, t).toBe(true);
    }
  });
});

describe('"that year", "the same year": the thread\'s one year', () => {
  it("keeps the thread's year when it has one", () => {
    const share = thread('How many crimes led to an arrest in 2022?', 'What is that as a percentage of all crimes that year?');
    expect(share.measure).toMatchObject({ kind: 'share', part: { arrest: true } });
    expect(time(share)).toEqual(Y(2022));
    const same = thread('thefts in March 2024', 'how many in the same year?');
    expect(time(same)).toEqual(Y(2024));
    const inThat = thread('robberies in district 3 in 2021', 'how many were domestic in that year');
    expect(inThat.filters).toMatchObject({ domestic: true, districts: [3] });
    expect(time(inThat)).toEqual(Y(2021));
  });

  it('is refused when the thread spans several years (which one?) or there is no thread', () => {
    expect(refusedWords('burglaries since 2015 by year', 'which year was worst', 'how many were domestic that year?')).toContain(
      'that year',
    );
    expect(readInThread('how many thefts that year?', undefined, ctx).ok).toBe(false);
  });
});

describe('"put X next to it", "put 2023 next to each month": a comparison, keeping the rows', () => {
  it('a year beside a grouped answer', () => {
    const months = ['How many assaults were there in district 7 in March 2024?', 'Show every month of 2024.'];
    for (const t of [
      'Put 2023 next to each month.',
      'put 2023 next to it',
      'put 2023 beside each month',
      'put the 2023 numbers next to it',
    ]) {
      const p = thread(...months, t);
      expect(p.groupBy, t).toEqual(['month']);
      expect(time(p), t).toEqual(Y(2024));
      expect(compared(p), t).toEqual(Y(2023));
    }
    const areasThread = ['How many burglaries were there in 2019?', 'Break that out by community area.'];
    const p = thread(...areasThread, 'Put the 2020 numbers next to each neighborhood so I can compare.');
    expect(p.groupBy).toEqual(['community_area']);
    expect(time(p)).toEqual(Y(2019));
    expect(compared(p)).toEqual(Y(2020));
  });

  it('a crime type beside the answer: versus that type', () => {
    for (const t of ['Put battery next to it.', 'put battery alongside it', 'put batteries next to that']) {
      const p = thread('Give me yearly theft numbers since 2020.', t);
      expect(p.versus, t).toEqual({ types: ['BATTERY'] });
      expect(p.filters.types, t).toEqual(['THEFT']);
      expect(p.groupBy, t).toEqual(['year']);
    }
  });

  it('what is put there must still be understood', () => {
    expect(refusedWords('thefts by year since 2020', 'put the chart next to it').join(' ')).toContain('chart');
    expect(refusedWords('thefts by year since 2020', 'put the officers next to it').join(' ')).toContain('officers');
    expect(refusedWords('thefts by year since 2020', 'put it in a spreadsheet')).toContain('put');
  });
});

describe('"the 3 years before that", "the two years prior": that many years right before the thread\'s period', () => {
  it("whatever the length of the thread's period", () => {
    const last3 = ['robberies since 2010 by year', 'How many robberies in total over the last 3 years?'];
    for (const t of ['And in the 3 years before that?', 'the 3 years before', 'what about the three years prior'])
      expect(time(thread(...last3, t)), t).toEqual({ from: '2020-01-01', to: '2023-01-01' });
    const one = thread('thefts in 2020', 'what about the 2 years before that?');
    expect(time(one)).toEqual({ from: '2018-01-01', to: '2020-01-01' });
    expect(thread('thefts in 2020 by month', 'and the three years earlier?').groupBy).toEqual(['month']);
  });

  it('on its own (before what?) it is refused, and "the year before" still moves the period by one', () => {
    expect(readInThread('thefts in the 3 years before', undefined, ctx).ok).toBe(false);
    expect(time(thread('thefts in 2020', 'the year before'))).toEqual(Y(2019));
  });
});
