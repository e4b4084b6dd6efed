// What a person reads: the headline restates what was counted, ties are said
// as ties, change is only along time, an empty result names the data's range.
import { describe, expect, it } from 'vitest';
import { narratePlan, understoodAs, type NarrationContext } from '../../src/plan/narrate.js';
import { parsePlan, type QueryPlanInput } from '../../src/plan/query-plan.js';

const ctx: NarrationContext = {
  areaNames: new Map([
    [25, 'Austin'],
    [32, 'Loop'],
  ]),
  dataFrom: '2001-01-01',
  dataTo: '2025-12-31',
  choices: { night: '22-06' },
};
const plan = (p: QueryPlanInput) => parsePlan(p);
const y2019 = { from: '2019-01-01', to: '2020-01-01' };

describe('narratePlan', () => {
  it('restates what it counted in the headline', () => {
    const p = plan({ measure: { kind: 'count' }, filters: { types: ['THEFT'], time: y2019 } });
    expect(narratePlan(p, { columns: ['incidents'], rows: [[2239]], rowCount: 1 }, ctx).headline).toBe(
      'Thefts in 2019, all of Chicago: 2,239',
    );
    expect(understoodAs(p, ctx)).toEqual(['thefts', 'in 2019', 'all of Chicago']);
  });

  it('names places, night with its chosen hours, and arrests', () => {
    const p = plan({
      measure: { kind: 'count' },
      filters: { areas: [25], night: true, arrest: true, time: { from: '2020-01-01', to: '2021-01-01' } },
    });
    expect(narratePlan(p, { columns: ['incidents'], rows: [[57]], rowCount: 1 }, ctx).headline).toBe(
      'Crimes with an arrest in 2020 at night (22:00-06:00), in Austin: 57',
    );
  });

  it('says the locations left out as a person would: not on the street', () => {
    const p = plan({
      measure: { kind: 'count' },
      filters: { types: ['ROBBERY'], locations: ['STREET'], exceptLocations: true, time: y2019 },
    });
    expect(narratePlan(p, { columns: ['incidents'], rows: [[812]], rowCount: 1 }, ctx).headline).toBe(
      'Robberies not on the street in 2019, all of Chicago: 812',
    );
  });

  it("two shares side by side: each side's highest share, no total of percentages", () => {
    const p = plan({
      measure: { kind: 'share', part: { domestic: true } },
      filters: { types: ['ASSAULT'] },
      groupBy: ['year'],
      versus: { types: ['BATTERY'] },
    });
    const rows = [
      [2020, 19.54, 42.07],
      [2021, 20.16, 42.83],
    ];
    const n = narratePlan(p, { columns: ['year', 'share_pct_assaults', 'share_pct_batteries'], rows, rowCount: 2 }, ctx).narration;
    expect(n).toContain('Assaults: the highest share (20.16%) in 2021. Batteries: the highest share (42.83%) in 2021.');
    expect(n).not.toMatch(/in all/);
  });

  it('says an empty result plainly, with the range of the data', () => {
    const p = plan({ measure: { kind: 'count' }, filters: { types: ['HOMICIDE'], time: { from: '2030-01-01', to: '2031-01-01' } } });
    expect(narratePlan(p, { columns: ['incidents'], rows: [[0]], rowCount: 1 }, ctx).narration).toBe(
      'No homicides are recorded in 2030, all of Chicago; the data runs from 2001-01-01 to 2025-12-31.',
    );
  });

  it('a share says the percentage with its parts', () => {
    const p = plan({ measure: { kind: 'share', part: { arrest: true } }, filters: { types: ['THEFT'], time: y2019 } });
    expect(narratePlan(p, { columns: ['share_pct', 'matching', 'incidents'], rows: [[12.33, 276, 2239]], rowCount: 1 }, ctx).headline).toBe(
      'Share of thefts with an arrest in 2019, all of Chicago: 12.33% (276 of 2,239)',
    );
  });

  it('a comparison by group with the later year compared ("2021 versus 2022") tells the change in time order', () => {
    const p = plan({
      measure: { kind: 'count' },
      filters: { types: ['ROBBERY', 'ASSAULT'], districts: [4], time: { from: '2021-01-01', to: '2022-01-01' } },
      groupBy: ['type'],
      compareWith: { from: '2022-01-01', to: '2023-01-01' },
    });
    const rows = [
      ['ASSAULT', 20, 26, -23.1],
      ['ROBBERY', 7, 7, 0],
    ];
    const n = narratePlan(
      p,
      { columns: ['primary_type', 'incidents', 'compared_incidents', 'change_pct'], rows, rowCount: 2 },
      ctx,
    ).narration;
    expect(n).toContain('2021: 27 in all; 2022: 33 (+22.2%).');
    expect(n).toContain('The largest rise: ASSAULT, 20 in 2021 to 26 in 2022.');
    expect(n).not.toContain('fall');
  });

  it('a share of a crime type says what the crimes were: "share of crimes that were thefts"', () => {
    const p = plan({ measure: { kind: 'share', part: { types: ['THEFT'] } }, filters: { time: y2019 } });
    expect(
      narratePlan(p, { columns: ['share_pct', 'matching', 'incidents'], rows: [[23.72, 2011, 8479]], rowCount: 1 }, ctx).headline,
    ).toBe('Share of crimes that were thefts in 2019, all of Chicago: 23.72% (2,011 of 8,479)');
    expect(understoodAs(p, ctx)[0]).toBe('share of crimes that were thefts');
  });

  it('weekdays by name, ties said as ties, no percentage change across a cycle', () => {
    const p = plan({ measure: { kind: 'count' }, filters: { time: y2019 }, groupBy: ['weekday'] });
    const rows = [
      ['Monday', 10],
      ['Tuesday', 12],
      ['Wednesday', 12],
      ['Thursday', 9],
      ['Friday', 11],
      ['Saturday', 9],
      ['Sunday', 8],
    ];
    const told = narratePlan(p, { columns: ['weekday', 'incidents'], rows, rowCount: 7 }, ctx);
    expect(told.headline).toBe('Crimes by day of the week in 2019, all of Chicago');
    expect(told.narration).toContain('Highest: 12, tied between Tuesday and Wednesday.');
    expect(told.narration).toContain('Lowest: Sunday with 8.');
    expect(told.narration).not.toMatch(/%/);
  });

  it('a monthly series with empty months: lowest is 0, and the change is along time', () => {
    const p = plan({ measure: { kind: 'count' }, filters: { types: ['HOMICIDE'], time: y2019 }, groupBy: ['month'] });
    const rows = ['January', 'February', 'March'].map((m, i) => [m, [2, 0, 4][i]]);
    const told = narratePlan(p, { columns: ['month', 'incidents'], rows, rowCount: 3 }, ctx);
    expect(told.narration).toContain('Lowest: February with 0.');
    expect(told.narration).toContain('From January to March: 2 to 4 (+100.0%).');
  });

  it('a comparison says more or fewer, and by how much', () => {
    const p = plan({
      measure: { kind: 'count' },
      filters: { types: ['THEFT'], time: y2019 },
      compareWith: { from: '2018-01-01', to: '2019-01-01' },
    });
    expect(narratePlan(p, { columns: [], rows: [['2019', 2239, '2018', 2150, 4.1]], rowCount: 1 }, ctx).narration).toBe(
      'Thefts in 2019, all of Chicago: 2,239. That is 4.1% more than in 2018 (2,150).',
    );
  });

  it('a top 5 names all five with their counts, ties as one place, and the total over every group; the headline says the cut', () => {
    const p = plan({ measure: { kind: 'count' }, filters: { time: y2019 }, groupBy: ['type'], top: { n: 5, order: 'desc' } });
    const rows = [
      ['THEFT', 149],
      ['BATTERY', 139],
      ['ASSAULT', 52],
      ['ROBBERY', 52],
      ['OTHER OFFENSE', 44],
    ];
    const facts = {
      groups: 18,
      valued: 18,
      total: 617,
      highest: { value: 149, labels: [['THEFT']], count: 1 },
      lowest: { value: 1, labels: [['STALKING']], count: 1 },
      zeros: 0,
      atCut: 1,
    };
    const told = narratePlan(p, { columns: ['primary_type', 'incidents'], rows, rowCount: 5 }, ctx, facts);
    expect(told.headline).toBe('Crimes in 2019, all of Chicago: top 5 crime types');
    expect(told.narration).toBe(
      '1. THEFT, 149; 2. BATTERY, 139; 3. ASSAULT and ROBBERY, tied at 52; 5. OTHER OFFENSE, 44. Out of 18 crime types, 617 in all.',
    );
  });

  it('a compared top N says its rule (the N of the asked period, the same groups in the other) and both values of each', () => {
    const p = plan({
      measure: { kind: 'count' },
      filters: { time: y2019 },
      groupBy: ['type'],
      top: { n: 2, order: 'desc' },
      compareWith: { from: '2018-01-01', to: '2019-01-01' },
    });
    const told = narratePlan(
      p,
      {
        columns: [],
        rows: [
          ['THEFT', 149, 148, 0.7],
          ['BATTERY', 139, 115, 20.9],
        ],
        rowCount: 2,
      },
      ctx,
    );
    expect(told.headline).toBe('Crimes in 2019, all of Chicago: top 2 crime types, compared with 2018');
    expect(told.narration).toBe(
      'Top 2 crime types of 2019 (ranked by 2019), each beside the same crime types in 2018: 1. THEFT, 149 in 2019 against 148 in 2018 (+0.7%); 2. BATTERY, 139 in 2019 against 115 in 2018 (+20.9%).',
    );
  });

  it('a share compared moves in points; totals of periods of different lengths are said to be so', () => {
    const share = plan({
      measure: { kind: 'share', part: { arrest: true } },
      filters: { types: ['THEFT'], time: y2019 },
      compareWith: { from: '2018-01-01', to: '2019-01-01' },
    });
    expect(narratePlan(share, { columns: [], rows: [['2019', 4.7, '2018', 8.78, -4.08]], rowCount: 1 }, ctx).narration).toBe(
      'Share of thefts with an arrest in 2019, all of Chicago: 4.70%. That is 4.08 points lower than in 2018 (8.78%).',
    );
    const longer = plan({
      measure: { kind: 'count' },
      filters: { types: ['THEFT'], time: { from: '2001-01-01', to: '2026-01-01' } },
      compareWith: { from: '2018-01-01', to: '2019-01-01' },
    });
    expect(narratePlan(longer, { columns: [], rows: [['2001-2025', 3470, '2018', 128, 2610.9]], rowCount: 1 }, ctx).narration).toContain(
      '2001-2025 is longer than 2018: the change compares totals of periods of different lengths, not rates.',
    );
  });
});
