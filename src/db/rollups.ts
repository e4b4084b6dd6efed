// The crime rollups (migrations 027, 036, 037, 041, 050 and 051): pre-aggregated counts the plan
// compiler answers from when a question fits inside one (src/plan/rollup-choice.ts),
// and model-written SQL is moved onto (src/db/aggregate-navigation.ts).
// This list is the one place they are defined: it mirrors the database's
// crime_rollups catalog, which the triggers that keep them exact read;
// test/db/rollups.test.ts checks that both agree. Every rollup has crimes' own
// column names: `date` truncated to its grain (none for `all`), its columns
// kept whole, and one measure, `n` = count(*) of the group (ROLLUP_MEASURE).

import type pg from 'pg';

/**
 * How a rollup's `date` is truncated. Each keeps some of the time facets a question can use: year
 * (the date's year, as a per-year average reads it), month (the month of year, a month-aligned
 * period), weekday (the day of the week: weekdays, weekends), day (day, day of year, any period of
 * whole days; a day keeps its weekday too) and hour (hour of day, night). The hour grain keeps them all (`date`
 * is the incident's hour). month_hour and year_hour
 * keep the hour of day inside the month's or year's first day; year_weekday_hour keeps the weekday
 * and the hour inside the year's first seven days (the first day of the year with the incident's
 * weekday, at its hour: the year, the weekday and the hour read from it as from crimes, the month
 * does not). An `all` rollup has no date: it counts all time.
 */
export type RollupGrain = 'hour' | 'day' | 'month' | 'month_hour' | 'year' | 'year_hour' | 'year_weekday_hour' | 'all';
export type TimeFacet = 'year' | 'month' | 'weekday' | 'day' | 'hour';

export const GRAIN_FACETS: Record<RollupGrain, readonly TimeFacet[]> = {
  hour: ['year', 'month', 'weekday', 'day', 'hour'],
  day: ['year', 'month', 'weekday', 'day'],
  month: ['year', 'month'],
  month_hour: ['year', 'month', 'hour'],
  year: ['year'],
  year_hour: ['year', 'hour'],
  year_weekday_hour: ['year', 'weekday', 'hour'],
  all: [],
};

export interface Rollup {
  table: string;
  grain: RollupGrain;
  /** crimes' columns kept whole (besides `date`, truncated to the grain; none for `all`) */
  columns: readonly string[];
}

const COMMON = ['year', 'primary_type', 'fbi_code', 'arrest', 'domestic'] as const;

/** A rollup's one measure: the incidents of its group, what count(*) over crimes gives. */
export const ROLLUP_MEASURE = { column: 'n', of: 'count(*)' } as const;

/** Smallest first: the compiler takes the first that holds everything a plan uses (rows at 8.5M in the comments). */
export const ROLLUPS: readonly Rollup[] = [
  { table: 'crimes_by_year_type', grain: 'year', columns: COMMON }, // 2.9K (036)
  { table: 'crimes_by_month', grain: 'month', columns: COMMON }, // 30K (037)
  { table: 'crimes_by_year_location', grain: 'year', columns: [...COMMON, 'location_description'] }, // 46K (036)
  { table: 'crimes_by_year_district', grain: 'year', columns: [...COMMON, 'district'] }, // 51K (036)
  { table: 'crimes_by_year_hour', grain: 'year_hour', columns: COMMON }, // 55K (037)
  // the four kinds of place of all time with the type: a question over all time across places (050)
  { table: 'crimes_by_place', grain: 'all', columns: ['primary_type', 'community_area', 'district', 'ward', 'beat'] }, // 81K
  { table: 'crimes_by_year_ward', grain: 'year', columns: [...COMMON, 'ward'] }, // 101K (036)
  { table: 'crimes_by_year_area', grain: 'year', columns: [...COMMON, 'community_area'] }, // 142K (036)
  { table: 'crimes_by_block', grain: 'all', columns: ['primary_type', 'block'] }, // 200K
  { table: 'crimes_by_hour', grain: 'hour', columns: ['year'] }, // 219K: every hour with an incident, nothing else (051)
  { table: 'crimes_by_month_location', grain: 'month', columns: [...COMMON, 'location_description'] }, // 308K
  { table: 'crimes_by_year_beat', grain: 'year', columns: [...COMMON, 'beat', 'district'] }, // 407K
  { table: 'crimes_by_year_place', grain: 'year', columns: [...COMMON, 'community_area', 'district', 'ward'] }, // 410K
  { table: 'crimes_by_month_hour', grain: 'month_hour', columns: COMMON }, // 437K
  { table: 'crimes_by_year_weekday_hour', grain: 'year_weekday_hour', columns: COMMON }, // (041; 161K at 1M rows)
  { table: 'crimes_by_day', grain: 'day', columns: COMMON }, // 532K
  { table: 'crimes_by_year_hour_place', grain: 'year_hour', columns: ['year', 'primary_type', 'community_area', 'district'] }, // 1.0M
];

/**
 * The tables a load of `table` changes: crimes brings its rollups (their triggers wrote them in the
 * load). `VACUUM (ANALYZE)` of them after a bulk load gives the planner statistics and sets the
 * visibility map that index-only scans need; autovacuum gets to a fresh bulk load too late.
 */
export const tablesChangedByLoad = (table: string): string[] => (table === 'crimes' ? ['crimes', ...ROLLUPS.map((r) => r.table)] : [table]);

/** Counts every rollup afresh from crimes (the triggers keep them; the ingest benchmark times a rebuild against them). */
export async function rebuildRollups(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT crime_rollups_rebuild()');
}
