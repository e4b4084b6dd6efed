// The crime rollups (migration 026): pre-aggregated counts the plan compiler
// answers from when a question fits inside one (src/plan/rollup-choice.ts).
// This list mirrors the database's crime_rollups catalog, which the triggers
// that keep them exact read; test/db/rollups.test.ts checks that both agree.

import type pg from 'pg';

/**
 * How a rollup's `date` is truncated. Each keeps some of the time facets a question can use:
 * month (the month of year, a month-aligned period), day (weekday, day, day of year, any period of
 * whole days) and hour (hour of day, night). A year grain keeps only the year; month_hour and year_hour
 * keep the hour of day inside the month's or year's first day.
 */
export type RollupGrain = 'day' | 'month' | 'month_hour' | 'year' | 'year_hour';
export type TimeFacet = 'month' | 'day' | 'hour';

export const GRAIN_FACETS: Record<RollupGrain, readonly TimeFacet[]> = {
  day: ['month', 'day'],
  month: ['month'],
  month_hour: ['month', 'hour'],
  year: [],
  year_hour: ['hour'],
};

export interface Rollup {
  table: string;
  grain: RollupGrain;
  /** crimes' columns kept whole (besides `date`, truncated to the grain) */
  columns: readonly string[];
}

const COMMON = ['year', 'primary_type', 'fbi_code', 'arrest', 'domestic'] as const;

/** Smallest first: the compiler takes the first that holds everything a plan uses (rows at 8.5M in the comments). */
export const ROLLUPS: readonly Rollup[] = [
  { table: 'crimes_by_month_location', grain: 'month', columns: [...COMMON, 'location_description'] }, // 308K
  { table: 'crimes_by_year_beat', grain: 'year', columns: [...COMMON, 'beat', 'district'] }, // 407K
  { table: 'crimes_by_year_place', grain: 'year', columns: [...COMMON, 'community_area', 'district', 'ward'] }, // 410K
  { table: 'crimes_by_month_hour', grain: 'month_hour', columns: COMMON }, // 437K
  { table: 'crimes_by_day', grain: 'day', columns: COMMON }, // 532K
  { table: 'crimes_by_year_hour_place', grain: 'year_hour', columns: ['year', 'primary_type', 'community_area', 'district'] }, // 1.0M
];

/**
 * The tables a load of `table` changes: crimes brings its rollups (their triggers wrote them in the
 * load). `VACUUM (ANALYZE)` of them after a bulk load gives the planner statistics and sets the
 * visibility map that index-only scans need; autovacuum gets to a fresh bulk load too late.
 */
export const tablesChangedByLoad = (table: string): string[] => (table === 'crimes' ? ['crimes', ...ROLLUPS.map((r) => r.table)] : [table]);

/** Counts a rollup afresh from crimes (the triggers keep it; the ingest benchmark times a rebuild against them). */
export async function rebuildRollup(pool: pg.Pool, r: Rollup): Promise<void> {
  const cols = r.columns.join(', ');
  await pool.query(`TRUNCATE ${r.table}`);
  await pool.query(`INSERT INTO ${r.table} (date, ${cols}, n) SELECT crime_rollup_date('${r.grain}', date), ${cols}, count(*) FROM crimes GROUP BY 1, ${cols}`);
}
