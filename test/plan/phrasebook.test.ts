// The phrasebook (fixtures/knowledge/phrasebook.json, src/plan/read/phrasebook.ts): shorthand and
// conversational glue of the third blind set (fixtures/benchmarks/conversations-heldout3.jsonl), each
// in a Teams-sentence and a Slack-fragment wording, read as the reader's own words; negations stay
// negations, and a word that changes the meaning and is not listed is still refused.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { parsePlan, type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx, thread } = threadReader('2025-12-31', { asEdit: false });

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const time = (p: QueryPlan) => p.filters.time && { from: p.filters.time.from, to: p.filters.time.to };

describe('shorthand', () => {
  it('"w/ arrest", "w/arrest", "with an arrest": the arrest flag; "w/o arrest": no arrest', () => {
    for (const t of ['w/ arrest', 'w/arrest', 'W/ arrests', 'only the ones with an arrest'])
      expect(thread('thefts in 2023', t).filters.arrest, t).toBe(true);
    expect(thread('thefts in 2023', 'w/o arrest').filters.arrest).toBe(false);
    const share = thread('% of crimes w/ arrest, 2016');
    expect(share.measure).toMatchObject({ kind: 'share', part: { arrest: true } });
    expect(time(share)).toEqual(Y(2016));
  });

  it('"excl domestic", "excl. domestic", "excluding domestic": not domestic, never domestic', () => {
    for (const t of ['excl domestic', 'excl. domestic', 'excluding domestic'])
      expect(thread('thefts per year since 2018', t).filters.domestic, t).toBe(false);
  });

  it('"by dist", "dist 11 only", "by district": districts', () => {
    expect(thread('thefts in 2023', 'by dist').groupBy).toEqual(['district']);
    expect(thread('thefts by month in 2023', 'dist 11 only').filters.districts).toEqual([11]);
  });

  it('"top10", "top5", "bottom3": the ranking and its N', () => {
    expect(thread('thefts in 2023', 'by dist', 'top10').top).toEqual({ n: 10, order: 'desc' });
    expect(thread('crimes in ward 24 in 2024 by type', 'top5').top).toEqual({ n: 5, order: 'desc' });
    expect(thread('thefts by district in 2023', 'bottom3').top).toEqual({ n: 3, order: 'asc' });
  });

  it('"last 5 yrs", "last 3 yrs", "last 5 years": the whole years before the data ends', () => {
    for (const t of ['last 5 yrs', 'last 5 years'])
      expect(time(thread('weapons violations per year', t)), t).toEqual({ from: '2021-01-01', to: '2026-01-01' });
    expect(time(thread('battery top 5 areas 2022', 'last 3 yrs'))).toEqual({ from: '2023-01-01', to: '2026-01-01' });
  });

  it('"% domestic by year, battery": the domestic share per year, as "percent" reads', () => {
    const p = thread('% domestic by year, battery');
    expect(p.measure).toMatchObject({ kind: 'share', part: { domestic: true } });
    expect(p.groupBy).toEqual(['year']);
    expect(p.filters.types).toEqual(['BATTERY']);
  });
});

describe('conversational glue', () => {
  it('"same thing but ...": the thread\'s question with the change', () => {
    const battery = 'How many batteries were reported in Austin in 2019?';
    for (const t of ['Same thing but only for cases where someone was arrested', 'same thing but w/ arrest']) {
      const p = thread(battery, t);
      expect(p.filters, t).toMatchObject({ types: ['BATTERY'], arrest: true, time: Y(2019) });
    }
    expect(thread('burglaries by weekday in 2024', 'Same thing but just in Austin').filters.areas).toEqual([25]);
  });

  it('"narrow that down to the ones where someone was arrested": with an arrest', () => {
    for (const t of ['Could you narrow that down to the ones where someone was arrested?', 'narrow it down to w/ arrest'])
      expect(thread('weapons violations per year', t).filters.arrest, t).toBe(true);
  });

  it('"from 2018 on", "2018 onwards", "2018 and later": since 2018, not 2018 alone', () => {
    for (const t of ['Only from 2018 on, please', '2018 onwards', 'from 2018 onward', '2018 and later'])
      expect(time(thread('narcotics arrests per year', t)), t).toEqual({ from: '2018-01-01', to: '2026-01-01' });
  });

  it('"from 2018 on the street" is 2018 on the street: "on" ends the period only at the end of a clause', () => {
    const p = thread('thefts from 2018 on the street');
    expect(time(p)).toEqual(Y(2018));
    expect(p.filters.locations).toEqual(['STREET']);
  });

  it('"the same comparison for motor vehicle thefts": the comparison kept, the type changed', () => {
    const months = 'What does the number of thefts look like month by month in 2021?';
    for (const t of ['Could you do the same comparison for motor vehicle thefts?', 'same comparison for motor vehicle thefts']) {
      const p = thread(months, 'How does 2020 stack up against that?', t);
      expect(p.filters.types, t).toEqual(['MOTOR VEHICLE THEFT']);
      expect(p.compareWith && { from: p.compareWith.from, to: p.compareWith.to }, t).toEqual(Y(2020));
      expect(p.versus, t).toBeUndefined();
    }
  });

  it('"how does 2020 stack up against that", "put 2023 next to it": the year beside the thread\'s, not instead', () => {
    const p = thread('What does the number of thefts look like month by month in 2021?', 'How does 2020 stack up against that?');
    expect(time(p)).toEqual(Y(2021));
    expect(p.compareWith && { from: p.compareWith.from, to: p.compareWith.to }).toEqual(Y(2020));
    for (const t of ['Could you put 2023 next to it?', 'put 2023 beside it']) {
      const q = thread('burglaries in Austin by month in 2024', t);
      expect(time(q), t).toEqual(Y(2024));
      expect(q.compareWith && { from: q.compareWith.from, to: q.compareWith.to }, t).toEqual(Y(2023));
    }
  });

  it('"instead of only 2021", "rather than just 2023": the year replaced, not kept', () => {
    const top = thread('top 10 community areas for robbery in 2021');
    for (const t of [
      'Could you do that across all years instead of only 2021?',
      'How about across all years rather than just 2021?',
      'all years rather than just 2021',
      'all years instead of only in 2021',
      'all years rather than just for 2021',
    ]) {
      const r = readInThread(t, top, ctx);
      expect(r.ok, t).toBe(true);
      if (r.ok) expect(parsePlan(r.plan).filters.time, t).toBeUndefined();
    }
  });

  it('"2020 instead of 2021", "2020 rather than 2021": 2020 alone, not both years joined', () => {
    for (const t of ['2020 instead of 2021', 'in 2020 rather than 2021', '2020 instead'])
      expect(time(thread('thefts by month in 2021', t)), t).toEqual(Y(2020));
  });

  it('"taken together": one period, not a series', () => {
    const p = thread('top 3 crime types in Englewood in 2024', 'And what about the last three years taken together?');
    expect(time(p)).toEqual({ from: '2023-01-01', to: '2026-01-01' });
    expect(p.groupBy).toEqual(['type']);
  });

  it('"counting all cases, not just arrests": the arrest filter taken away', () => {
    const p = thread('top 5 crime types by arrests in 2020', 'What would it look like counting all cases, not just arrests?');
    expect(p.filters.arrest).toBeUndefined();
    expect(p.top?.n).toBe(5);
  });
});

describe('locations left out, never kept', () => {
  const base = 'robberies by hour in 2023';
  it('"leave out the ones that happened on the street", "excl street", "not on the street", "excluding the street"', () => {
    for (const t of [
      'Leave out the ones that happened on the street',
      'excl street',
      'not on the street',
      'excluding the street',
      'other than on the street',
    ]) {
      const p = thread(base, t);
      expect(p.filters, t).toMatchObject({ locations: ['STREET'], exceptLocations: true });
    }
  });
  it('"only on the street" still keeps the street', () => {
    const p = thread(base, 'only on the street');
    expect(p.filters.locations).toEqual(['STREET']);
    expect(p.filters.exceptLocations).toBeUndefined();
  });
});

describe('still refused', () => {
  it('a word that changes the meaning and is not in the phrasebook', () => {
    const r = readInThread('w/ snow', thread('thefts in 2023'), ctx);
    expect(r.ok).toBe(false);
  });
});

describe('adding back what a filter left out', () => {
  it('"include the ones without an arrest too" after "only arrests" drops the arrest filter; never flips it', () => {
    const first = ['narcotics in Humboldt Park by year since 2022', 'only arrests'];
    expect(thread(...first).filters.arrest).toBe(true);
    for (const t of [
      'Include the ones without an arrest too.',
      'include those without an arrest',
      'include the ones without arrests too',
      'including the ones without an arrest',
    ]) {
      const p = thread(...first, t);
      expect(p.filters.arrest, t).toBeUndefined();
      expect(p.filters.types, t).toEqual(['NARCOTICS']);
      expect(p.groupBy, t).toEqual(['year']);
    }
    // said on its own, "without an arrest" is still the other half
    expect(thread(...first, 'only the ones without an arrest').filters.arrest).toBe(false);
  });
});
