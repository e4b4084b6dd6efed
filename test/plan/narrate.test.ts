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
});
