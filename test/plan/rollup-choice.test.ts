// Which rollup a plan is answered from: the smallest that keeps every column and
// time facet it reads (the differential tests check the rows are the same).
import { describe, expect, it } from 'vitest';
import { chooseRollup, planShape } from '../../src/plan/rollup-choice.js';
import { parsePlan, type QueryPlanInput } from '../../src/plan/query-plan.js';

const choose = (plan: QueryPlanInput, choices: Record<string, string> = {}) => chooseRollup(parsePlan(plan), choices)?.table;

describe('the rollup a plan is answered from', () => {
  it('the weekday and the hour together: the weekday-hour rollup, inside whole years', () => {
    expect(choose({ measure: { kind: 'count' }, groupBy: ['hour'], filters: { types: ['ROBBERY'], weekdays: [6, 7] } })).toBe(
      'crimes_by_year_weekday_hour',
    );
    expect(
      choose({ measure: { kind: 'count' }, groupBy: ['weekday'], filters: { types: ['THEFT'], night: true } }, { night: '22-06' }),
    ).toBe('crimes_by_year_weekday_hour');
    // without a type, the smaller rollup of every hour holds them too (219K rows at 8.5M, against 287K)
    expect(choose({ measure: { kind: 'count' }, groupBy: ['weekday'], filters: { night: true } }, { night: '22-06' })).toBe(
      'crimes_by_hour',
    );
    // the weekend that starts on Friday evening reads the hour too
    expect(choose({ measure: { kind: 'count' }, groupBy: ['type'], filters: { weekend: true } }, { weekend: 'fri_evening' })).toBe(
      'crimes_by_year_weekday_hour',
    );
    expect(
      choose({
        measure: { kind: 'count' },
        groupBy: ['hour', 'weekday'],
        filters: { arrest: true, time: { from: '2019-01-01', to: '2021-01-01' } },
      }),
    ).toBe('crimes_by_year_weekday_hour');
  });

  it('locations left out ("not on the street") need a rollup that keeps the place of occurrence', () => {
    const notStreet = { locations: ['STREET'], exceptLocations: true as const };
    expect(choose({ measure: { kind: 'count' }, groupBy: ['year'], filters: notStreet })).toBe('crimes_by_year_location');
    expect(choose({ measure: { kind: 'count' }, groupBy: ['month'], filters: { ...notStreet, types: ['ROBBERY'] } })).toBe(
      'crimes_by_month_location',
    );
    // the hour and the place together: no rollup keeps both
    expect(choose({ measure: { kind: 'count' }, groupBy: ['hour'], filters: notStreet })).toBeUndefined();
  });

  it('a weekday in some months, or in a run of days, needs whole days', () => {
    expect(
      choose({
        measure: { kind: 'count' },
        groupBy: ['weekday'],
        filters: { domestic: true, time: { from: '2019-03-01', to: '2019-06-01' } },
      }),
    ).toBe('crimes_by_day');
    expect(choose({ measure: { kind: 'count' }, groupBy: ['weekday'], filters: { types: ['THEFT'], months: [7, 8] } })).toBe(
      'crimes_by_day',
    );
    // a weekday with an hour in some months: only the hour rollup keeps all three, without a type
    expect(choose({ measure: { kind: 'count' }, groupBy: ['hour'], filters: { weekdays: [1], months: [7] } })).toBe('crimes_by_hour');
    expect(
      choose({ measure: { kind: 'count' }, groupBy: ['hour'], filters: { types: ['THEFT'], weekdays: [1], months: [7] } }),
    ).toBeUndefined();
  });

  it('places over all time: the place rollup; with a period, an arrest or a place of occurrence, a rollup that keeps it', () => {
    // the beats of each community area (the slowest random plan from crimes: 18 s at 8.5M rows)
    expect(choose({ measure: { kind: 'distinct', of: 'beat' }, groupBy: ['community_area'] })).toBe('crimes_by_place');
    expect(choose({ measure: { kind: 'count' }, groupBy: ['ward'], filters: { types: ['THEFT'], districts: [1] } })).toBe(
      'crimes_by_place',
    );
    expect(choose({ measure: { kind: 'average_per', per: 'beat' }, filters: { types: ['ROBBERY'] } })).toBe('crimes_by_place');
    // the place rollup has no year, no arrest and no place of occurrence
    expect(choose({ measure: { kind: 'count' }, groupBy: ['ward'], filters: { time: { from: '2019-01-01', to: '2020-01-01' } } })).toBe(
      'crimes_by_year_ward',
    );
    expect(choose({ measure: { kind: 'count' }, groupBy: ['beat'], filters: { arrest: true } })).toBe('crimes_by_year_beat');
    expect(choose({ measure: { kind: 'count' }, groupBy: ['community_area'], filters: { locations: ['STREET'] } })).toBeUndefined();
  });

  it('the day and the hour together, with no type, place or flag: the hour rollup', () => {
    expect(choose({ measure: { kind: 'count' }, groupBy: ['day_of_year'], filters: { night: true } }, { night: '22-06' })).toBe(
      'crimes_by_hour',
    );
    expect(
      choose({ measure: { kind: 'count' }, groupBy: ['month_of_year'], filters: { weekdays: [6, 7], hours: { from: 8, to: 13 } } }),
    ).toBe('crimes_by_hour');
    expect(choose({ measure: { kind: 'count' }, groupBy: ['hour'], filters: { time: { from: '2017-11-16', to: '2018-01-08' } } })).toBe(
      'crimes_by_hour',
    );
    // a type with them: no rollup keeps the type with the day and the hour
    expect(
      choose({ measure: { kind: 'count' }, groupBy: ['day_of_year'], filters: { types: ['THEFT'], night: true } }, { night: '22-06' }),
    ).toBeUndefined();
  });

  it('the gap between crimes on a block: over every incident from the block rollup, over some from crimes', () => {
    expect(choose({ measure: { kind: 'average_gap', unit: 'day' } })).toBe('crimes_by_block');
    expect(choose({ measure: { kind: 'average_gap', unit: 'hour' }, filters: { types: ['BURGLARY'] } })).toBeUndefined();
    expect(
      choose({ measure: { kind: 'average_gap', unit: 'day' }, filters: { time: { from: '2019-01-01', to: '2020-01-01' } } }),
    ).toBeUndefined();
  });

  it('the shape the plan bench tallies for a plan read from crimes: its places and time facets beyond the year', () => {
    const shape = (plan: QueryPlanInput, choices: Record<string, string> = {}) => planShape(parsePlan(plan), choices);
    expect(shape({ measure: { kind: 'count' }, groupBy: ['hour'], filters: { districts: [1], weekdays: [6] } })).toBe(
      'district | hour,weekday',
    );
    expect(shape({ measure: { kind: 'distinct', of: 'beat' }, groupBy: ['community_area'] })).toBe('beat+community_area | years only');
    expect(shape({ measure: { kind: 'count' }, groupBy: ['day_of_year'], filters: { types: ['THEFT'], arrest: true } })).toBe(
      'no place | day',
    );
    expect(shape({ measure: { kind: 'average_gap', unit: 'day' }, filters: { types: ['THEFT'] } })).toBe('gap over some incidents');
  });
});
