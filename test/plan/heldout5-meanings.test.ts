// Meanings the fifth held-out set (a council staffer, a researcher) was missing, each in wordings written here:
// a numbered ward or district asked for its "numbers"; "how's that compare to ward 28"; a location said as a field
// of the record ("whose location is recorded as a residence"); "present", "use 2022", "the output" as the asking;
// "extend the period to cover 2019 through 2021"; "put both wards side by side"; and a place added to the thread's
// ("add district 5", "also district 5"), which sets both places side by side instead of replacing the first.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx, thread, threadWithBefore } = threadReader('2025-12-31', { asEdit: false });

const Y = (from: number, to = from) => ({ from: `${from}-01-01`, to: `${to + 1}-01-01` });
const time = (p: QueryPlan) => p.filters.time && { from: p.filters.time.from, to: p.filters.time.to };

describe('a numbered ward, district or beat asked for its figures', () => {
  it('"ward 27 numbers for 2023", "district 3 counts for 2022", "beat 1123 totals in 2024": a count there', () => {
    for (const [t, place, year] of [
      ['ward 27 numbers for 2023', { wards: [27] }, 2023],
      ['district 3 counts for 2022', { districts: [3] }, 2022],
      ['beat 1123 totals in 2024', { beats: [1123] }, 2024],
      ['the 2021 tallies for ward 5', { wards: [5] }, 2021],
    ] as const) {
      const p = thread(t);
      expect(p.measure, t).toEqual({ kind: 'count' });
      expect(p.filters, t).toMatchObject(place);
      expect(p.filters.types, t).toBeUndefined();
      expect(time(p), t).toEqual(Y(year));
    }
  });
});

describe('"how\'s that compare to" another place', () => {
  it('sets the thread beside the place named, in three wordings', () => {
    for (const t of ["how's that compare to ward 28", 'hows it compare with ward 28', 'how does that compare to ward 28']) {
      const p = thread('ward 27 numbers for 2023', t);
      expect(p.filters.wards, t).toEqual([27]);
      expect(p.versus, t).toEqual({ wards: [28] });
      expect(time(p), t).toEqual(Y(2023));
    }
  });
});

describe('a location said as a field of the record', () => {
  it('"incidents whose location is recorded as a residence" narrows the thread to residences, the type kept', () => {
    for (const t of [
      'Please restrict that to incidents whose location is recorded as a residence.',
      'limit it to cases where the location is listed as a residence',
      'only those whose location was a residence',
      'Restrict this to crimes with the location recorded as a residence.',
    ]) {
      const p = thread('arrest rate for deceptive practice by year from 2015 through 2020', t);
      expect(p.filters.types, t).toEqual(['DECEPTIVE PRACTICE']);
      expect(p.filters.locations, t).toEqual(['RESIDENCE']);
      expect(p.measure, t).toEqual({ kind: 'share', part: { arrest: true } });
      expect(time(p), t).toEqual(Y(2015, 2020));
    }
  });

  it('"restrict that to incidents with an arrest" keeps the thread\'s subject too', () => {
    for (const t of [
      'Please restrict that to incidents with an arrest.',
      'limit this to cases with an arrest',
      'narrow it to offenses with an arrest',
    ]) {
      const p = thread('burglaries in 2022 by month', t);
      expect(p.filters.types, t).toEqual(['BURGLARY']);
      expect(p.filters.arrest, t).toBe(true);
      expect(p.groupBy, t).toEqual(['month']);
    }
  });
});

describe('the asking in a formal edit: "present", "use 2022", "the output"', () => {
  const first = 'the share of assaults in 2023 that were domestic, as a percentage';

  it('"present the same figure for each police district" groups the thread by district', () => {
    for (const t of [
      'Please present the same figure for each police district.',
      'Kindly present that for each district.',
      'present this by district please',
    ]) {
      const p = thread(first, t);
      expect(p.groupBy, t).toEqual(['district']);
      expect(p.measure, t).toEqual({ kind: 'share', part: { domestic: true } });
    }
  });

  it('"from 2019 to the present" is still a time, not the asking', () => {
    const p = thread('thefts from 2019 to the present');
    expect(p.filters.time?.from).toBe('2019-01-01');
  });

  it('"use 2022 rather than 2023", "use 2021 instead", "the same, using 2020": that year', () => {
    for (const [t, y] of [
      ['Kindly use 2022 rather than 2023.', 2022],
      ['use 2021 instead', 2021],
      ['the same, using 2020', 2020],
    ] as const) {
      const p = thread(first, 'by district', t);
      expect(time(p), t).toEqual(Y(y));
      expect(p.groupBy, t).toEqual(['district']);
    }
  });

  it('"limit the output to the three districts with the highest share": the top three', () => {
    for (const t of [
      'Please limit the output to the three districts with the highest share.',
      'restrict the output to the top 3 districts',
      'cut that output to the three highest districts',
    ]) {
      const p = thread(first, 'by district', t);
      expect(p.top, t).toEqual({ n: 3, order: 'desc' });
      expect(p.groupBy, t).toEqual(['district']);
    }
  });
});

describe('extending the period, said politely and of "the period" or "the analysis"', () => {
  const first = 'weapons violations for each day of the week in 2021';

  it('"extend the period to cover 2019 through 2021": the years said, end to end with the thread\'s', () => {
    for (const t of [
      'Could you extend the period to cover 2019 through 2021?',
      "I'd like to extend the time frame to include 2019-2021",
      'please extend the analysis to cover the years 2019 to 2021',
    ]) {
      const p = thread(first, t);
      expect(time(p), t).toEqual(Y(2019, 2021));
      expect(p.groupBy, t).toEqual(['weekday']);
    }
  });

  it('"extend the analysis to 2023", "stretch the series back to 2019": one end moved, the other kept', () => {
    expect(time(thread(first, 'extend the analysis to 2023'))).toEqual(Y(2021, 2023));
    expect(time(thread(first, 'Kindly extend the data through 2022.'))).toEqual(Y(2021, 2022));
    expect(time(thread(first, 'can you stretch the series back to 2019'))).toEqual(Y(2019, 2021));
  });

  it('a year outside the data is still not read as an extension', () => {
    const r = readInThread('extend the period to cover 2030 through 2031', thread(first), ctx);
    expect(r.ok && r.edit && r.plan.filters?.time?.to === '2032-01-01').toBe(false);
  });
});

describe('both places of the two answers before, side by side', () => {
  it('"put both wards side by side by year" after ward 24 then ward 20', () => {
    for (const t of ['put both wards side by side by year', 'both of them side by side by year', 'set both wards side by side per year']) {
      const p = threadWithBefore('narcotics in ward 24 per year, past 3 years', 'what about ward 20', t).last;
      expect(p.filters.wards, t).toEqual([24]);
      expect(p.versus, t).toEqual({ wards: [20] });
      expect(p.groupBy, t).toEqual(['year']);
    }
  });
});

describe("a place added to the thread's place", () => {
  it('"add district 5", "also district 5", "supplement this with district 5": both districts side by side', () => {
    for (const t of ['add district 5', 'also district 5', 'supplement this with district 5', 'district 5 too']) {
      const p = thread('thefts in district 3 in 2023', t);
      expect(p.filters.districts, t).toEqual([3]);
      expect(p.versus, t).toEqual({ districts: [5] });
      expect(p.filters.types, t).toEqual(['THEFT']);
    }
  });

  it('"what about district 5" still moves the answer to district 5', () => {
    for (const t of ['what about district 5', 'and district 5?', 'district 5 instead']) {
      const p = thread('thefts in district 3 in 2023', t);
      expect(p.filters.districts, t).toEqual([5]);
      expect(p.versus, t).toBeUndefined();
    }
  });

  it('over a list by ward, an added ward joins the list', () => {
    for (const t of ['add ward 5', 'also ward 5', 'ward 5 as well']) {
      const p = thread('thefts by ward in wards 1 and 2 in 2023', t);
      expect(p.filters.wards, t).toEqual([1, 2, 5]);
      expect(p.groupBy, t).toEqual(['ward']);
      expect(p.versus, t).toBeUndefined();
    }
  });
});

describe('two places named against each other after a list of places', () => {
  it('"ward 3 vs ward 4 that year" after the top wards: the two wards side by side, that year, no list', () => {
    for (const t of ['ward 3 vs ward 4 that year', 'compare ward 3 with ward 4', 'ward 3 versus ward 4']) {
      const p = thread('top 5 wards for criminal damage in 2024', 'same for 2023', t);
      expect(p.filters.wards, t).toEqual([3]);
      expect(p.versus, t).toEqual({ wards: [4] });
      expect(p.groupBy, t).toEqual([]);
      expect(p.top, t).toBeUndefined();
      expect(p.compareWith, t).toBeUndefined();
      expect(time(p), t).toEqual(Y(2023));
    }
  });

  it("a period that is not the thread's is still no side", () => {
    const r = readInThread('ward 3 vs ward 4 in 2019', thread('thefts by ward in 2023'), ctx);
    expect(r.ok && r.plan.versus && r.plan.filters?.time?.from === '2023-01-01').toBeFalsy();
  });
});
