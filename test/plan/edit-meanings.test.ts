// Edits that mean what a person means, from the third blind held-out set
// (fixtures/benchmarks/conversations-heldout3.jsonl): a type said after "what share of all crimes were thefts"
// replaces the type inside the share; "that share" after a share keeps it. Pure tests of the reader.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx, thread, bare, expectEdit } = threadReader('2025-12-31', { asEdit: false });

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });

describe('a type said after a share of all crimes', () => {
  it('"And battery?" after "what share of all crimes in 2022 were thefts": battery\'s share of all crimes', () => {
    const last = thread('What share of all crimes in 2022 were thefts?');
    expect(bare(last)).toEqual(bare({ measure: { kind: 'share', part: { types: ['THEFT'] } }, filters: { time: Y(2022) } }));
    const battery = { measure: { kind: 'share', part: { types: ['BATTERY'] } }, filters: { time: Y(2022) } } as const;
    for (const text of ['And battery?', 'what about battery', 'battery instead', 'and for batteries?']) expectEdit(last, text, battery);
    expectEdit(last, 'and robbery in 2019?', { measure: { kind: 'share', part: { types: ['ROBBERY'] } }, filters: { time: Y(2019) } });
  });

  it('a share of one type (domestic share of battery): a type said replaces the crimes it is of, as before', () => {
    const last = thread('What percentage of battery cases in 2020 were domestic?');
    expectEdit(last, 'and assault?', {
      measure: { kind: 'share', part: { domestic: true } },
      filters: { types: ['ASSAULT'], time: Y(2020) },
    });
  });

  it('"that share by year", "the share by district" after a share keep the share', () => {
    const last = thread('What share of all crimes in 2022 were thefts?', 'And battery?');
    const perYear = { measure: { kind: 'share', part: { types: ['BATTERY'] } }, groupBy: ['year'] } as const;
    expectEdit(last, 'show that share by year for every year', perYear);
    expectEdit(last, 'what percentage by district', {
      measure: { kind: 'share', part: { types: ['BATTERY'] } },
      filters: { time: Y(2022) },
      groupBy: ['district'],
    });
  });
});

describe("a comparison with another type that restates the thread's scope", () => {
  it('"compare with robbery arrests" after weapons-violation arrests per year: robbery beside it, the arrest filter and years kept', () => {
    const last = thread('How many weapons violations were there each year?', 'only arrests', 'since 2021');
    const expected = {
      measure: { kind: 'count' },
      filters: { types: ['WEAPONS VIOLATION'], arrest: true, time: { from: '2021-01-01', to: '2026-01-01' } },
      groupBy: ['year'],
      versus: { types: ['ROBBERY'] },
    } as const;
    for (const text of ['compare with robbery arrests', 'vs robberies with an arrest', 'compare that with robbery arrests'])
      expectEdit(last, text, expected);
    expectEdit(last, 'vs robbery', expected);
  });

  it('a flag the thread does not have is not a side: refused rather than dropped', () => {
    const last = thread('How many weapons violations were there each year?');
    expect(readInThread('compare with robbery arrests', last, ctx).ok).toBe(false);
  });
});

describe('periods set beside, or let go', () => {
  it('"put 2023 next to it", "how does 2020 stack up against that", "compare with 2023" after a year by month: compared, not replaced', () => {
    const last = thread('burglaries in Austin in 2024 by month');
    for (const [text, y] of [
      ['Could you put 2023 next to it?', 2023],
      ['How does 2020 stack up against that?', 2020],
      ['compare with 2023', 2023],
    ] as const) {
      const r = readInThread(text, last, ctx);
      if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)}`);
      expect(r.plan.filters?.time, text).toMatchObject(Y(2024));
      expect(r.plan.compareWith, text).toMatchObject(Y(y));
      expect(r.plan.groupBy, text).toEqual(last.groupBy);
    }
  });

  it('"across all years instead of only 2021", "rather than just 2023": the period removed, the ranking kept', () => {
    const last = thread('top 10 community areas for robbery in 2021');
    for (const text of ['Could you do that across all years instead of only 2021?', 'How about across all years rather than just 2021?']) {
      const r = readInThread(text, last, ctx);
      if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)}`);
      expect(r.plan.filters?.time, text).toBeUndefined();
      expect(r.plan.top, text).toEqual({ n: 10, order: 'desc' });
      expect(r.plan.filters?.types, text).toEqual(['ROBBERY']);
    }
  });
});

describe('a location left out', () => {
  it('"leave out the ones on the street", "excl street", "not on the street": every other location, the rest kept', () => {
    const last = thread('robberies by hour in 2023');
    for (const text of ['Leave out the ones that happened on the street', 'excl street', 'not on the street', 'excluding the street']) {
      const r = readInThread(text, last, ctx);
      if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)}`);
      expect(r.plan.filters, text).toMatchObject({ types: ['ROBBERY'], locations: ['STREET'], exceptLocations: true });
      expect(r.plan.groupBy, text).toEqual(['hour']);
    }
    // then by location: the street stays left out, not widened to every location
    const r = readInThread('by location', thread('robberies by hour in 2023', 'excl street'), ctx);
    expect(r.ok && r.plan.filters).toMatchObject({ locations: ['STREET'], exceptLocations: true });
  });
});
