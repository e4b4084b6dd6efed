// Aggregate navigation: SQL that counts over crimes runs on the rollup that
// holds it, with the same rows. Differential over generated crimes: random SQL
// of the shapes models write, the benchmark's gold SQL, and the SQL compiled
// from random plans against crimes, each run as written and as moved.
import { describe, expect, it } from 'vitest';
import { navigateAggregates } from '../../src/db/aggregate-navigation.js';
import { loadBenchmarks } from '../../src/eval/sql-eval.js';
import { Random } from '../../src/ingest/generate/random.js';
import { compilePlan, PlanCompileError } from '../../src/plan/compile.js';
import { randomPlans } from '../../src/plan/random-plans.js';
import { crimeDatabase } from '../helpers/crime-data.js';

const data = crimeDatabase(30_000);

async function rows(sql: string): Promise<string[]> {
  const { rows } = await data.db.reader!.pool.query({ text: sql, rowMode: 'array' });
  return rows.map((r) => JSON.stringify(r));
}

/** Both ways: the rows in order when the query orders them whole, else as a sorted list. */
async function bothWays(sql: string, ordered: boolean) {
  const moved = await navigateAggregates(sql);
  if (!moved) return undefined;
  const [a, b] = [await rows(sql), await rows(moved.sql)];
  return { moved, asWritten: ordered ? a : a.sort(), onRollup: ordered ? b : b.sort() };
}

describe('which SQL moves onto a rollup', () => {
  const cases: [string, string | undefined][] = [
    ["SELECT count(*) AS incidents FROM crimes WHERE primary_type = 'THEFT' AND year = 2019", 'crimes_by_year_type'],
    ['SELECT district, count(*) FROM crimes WHERE arrest GROUP BY district ORDER BY 2 DESC', 'crimes_by_year_district'],
    ['SELECT c.ward, count(*) AS n FROM crimes c WHERE c.domestic GROUP BY 1', 'crimes_by_year_ward'],
    ['SELECT crimes.location_description, count(*) FROM crimes GROUP BY 1', 'crimes_by_year_location'],
    ['SELECT extract(month FROM date) AS m, count(*) FROM crimes WHERE year = 2020 GROUP BY 1', 'crimes_by_month'],
    [
      "SELECT extract(month FROM date) AS m, count(*) FROM crimes WHERE location_description = 'STREET' GROUP BY 1",
      'crimes_by_month_location',
    ],
    ['SELECT extract(hour FROM date) AS h, count(*) FROM crimes GROUP BY 1', 'crimes_by_year_hour'],
    // the hour in some months: without a type the rollup of every hour (051), with one the month-hour rollup
    [
      "SELECT extract(hour FROM date) AS h, count(*) FROM crimes WHERE date >= '2019-03-01' AND date < '2019-06-01' GROUP BY 1",
      'crimes_by_hour',
    ],
    [
      "SELECT extract(hour FROM date) AS h, count(*) FROM crimes WHERE primary_type = 'THEFT' AND date >= '2019-03-01' AND date < '2019-06-01' GROUP BY 1",
      'crimes_by_month_hour',
    ],
    ["SELECT date_trunc('day', date) AS d, count(*) FROM crimes WHERE extract(hour FROM date) >= 22 GROUP BY 1", 'crimes_by_hour'],
    ["SELECT date::date AS day, count(*) FROM crimes WHERE date >= '2020-03-05' AND date < '2020-04-01' GROUP BY 1", 'crimes_by_day'],
    ["SELECT block, count(*) FROM crimes WHERE primary_type = 'BURGLARY' GROUP BY block ORDER BY 2 DESC LIMIT 10", 'crimes_by_block'],
    ['SELECT count(DISTINCT beat) FROM crimes WHERE year = 2019', 'crimes_by_year_beat'],
    // the weekday and the hour together (a weekend that starts on Friday evening)
    [
      "SELECT extract(hour FROM date)::int AS hour, count(*) FROM crimes WHERE primary_type = 'ROBBERY' AND (extract(isodow FROM date) IN (6, 7) OR (extract(isodow FROM date) = 5 AND extract(hour FROM date) >= 18)) GROUP BY 1",
      'crimes_by_year_weekday_hour',
    ],
    [
      "SELECT to_char(date, 'FMDay') AS weekday, count(*) FROM crimes WHERE primary_type = 'THEFT' AND year = 2020 GROUP BY 1",
      'crimes_by_year_weekday_hour',
    ],
    ['SELECT extract(dow FROM date) AS d, count(*) FROM crimes WHERE arrest GROUP BY 1', 'crimes_by_year_weekday_hour'],
    // a weekday with a month, or a day of the month, needs days
    [
      "SELECT extract(isodow FROM date) AS d, count(*) FROM crimes WHERE domestic AND date >= '2020-03-01' AND date < '2020-05-01' GROUP BY 1",
      'crimes_by_day',
    ],
    ["SELECT to_char(date, 'Dy DD') AS d, count(*) FROM crimes WHERE NOT arrest AND year = 2020 GROUP BY 1", 'crimes_by_day'],
    // a rate over incidents: avg and sum of an integer, weighed by each group's count
    [
      "SELECT round(100.0 * avg(arrest::int), 2) AS arrest_pct, count(*) FROM crimes WHERE primary_type = 'NARCOTICS' AND year = 2015",
      'crimes_by_year_type',
    ],
    [
      'SELECT year, avg(CASE WHEN domestic THEN 1 ELSE 0 END), sum(arrest::int) AS arrests FROM crimes GROUP BY year',
      'crimes_by_year_type',
    ],
    ['SELECT avg(extract(hour FROM date)) FROM crimes', undefined], // not an integer: a float's sum depends on its order
    ['SELECT avg(beat) FILTER (WHERE arrest) FROM crimes', undefined],
    // a lookup table joined on its key: each incident meets at most one community area
    [
      'SELECT a.name, count(*) AS n FROM crimes c JOIN community_areas a USING (community_area) WHERE c.year = 2020 GROUP BY a.name ORDER BY n DESC',
      'crimes_by_year_area',
    ],
    [
      'SELECT name, count(*) FROM crimes LEFT JOIN community_areas ON crimes.community_area = community_areas.community_area GROUP BY 1',
      'crimes_by_place', // all time: the place rollup (050)
    ],
    ['SELECT a.name, count(*) FROM crimes c JOIN community_areas a ON a.community_area = c.ward GROUP BY 1', undefined],
    ['SELECT a.name, count(*) FROM community_areas a LEFT JOIN crimes c USING (community_area) GROUP BY 1', undefined],
    // the values found: DISTINCT and GROUP BY without aggregates keep each once
    ['SELECT DISTINCT district FROM crimes WHERE district IS NOT NULL', 'crimes_by_year_district'],
    ["SELECT block FROM crimes WHERE primary_type = 'THEFT' GROUP BY block", 'crimes_by_block'],
    ['SELECT DISTINCT ON (district) district, beat FROM crimes ORDER BY district, beat', undefined],
    // not exact over truncated dates, or not counts over crimes alone
    ["SELECT count(*) FROM crimes WHERE date <= '2020-01-01'", undefined],
    ["SELECT count(*) FROM crimes WHERE date > '2020-01-01'", undefined],
    ['SELECT avg(beat::float8) FROM crimes', undefined],
    ["SELECT block, date FROM crimes WHERE primary_type = 'HOMICIDE'", undefined],
    ['SELECT count(*) OVER () FROM crimes', undefined],
    ["SELECT count(*) FROM crimes WHERE description ILIKE '%RETAIL%'", undefined],
    ['SELECT a.name, count(*) FROM crimes c CROSS JOIN community_areas a GROUP BY 1', undefined],
    ['WITH crimes AS (SELECT 1 AS year) SELECT count(*) FROM crimes', undefined],
    ['SELECT count(*) FROM crimes WHERE district IN (SELECT district FROM crimes WHERE year = 2019)', undefined],
  ];
  it.each(cases)('%s', async (sql, rollup) => {
    const moved = await navigateAggregates(sql);
    expect(moved?.rollups).toEqual(rollup ? [rollup] : undefined);
    // the SQL shown names the table that answered
    if (moved) expect(moved.sql.split('\n')[0]).toBe(`-- answered from ${rollup} (the same counts as crimes, pre-aggregated)`);
  });

  it('keeps the output names a person sees: a bare count(*) is still "count"', async () => {
    const moved = await navigateAggregates('SELECT primary_type, count(*) FROM crimes WHERE year = 2019 GROUP BY 1 ORDER BY 2 DESC');
    const { fields } = await data.db.reader!.pool.query(moved!.sql);
    expect(fields.map((f) => f.name)).toEqual(['primary_type', 'count']);
    expect(moved!.sql).toContain('sum(n) AS count');
  });

  it('an empty match counts 0, as count(*) does (with and without FILTER)', async () => {
    const sql = "SELECT count(*) AS incidents, count(*) FILTER (WHERE arrest) AS arrests FROM crimes WHERE primary_type = 'NO SUCH TYPE'";
    const got = await bothWays(sql, true);
    expect(got!.onRollup).toEqual(['[0,0]']);
    expect(got!.asWritten).toEqual(got!.onRollup);
  });
});

const TYPES = ["'THEFT'", "'BATTERY'", "'NARCOTICS'", "'BURGLARY'", "'HOMICIDE'", "'ASSAULT'"];
const KEYS = [
  'primary_type',
  'year',
  'district',
  'ward',
  'community_area',
  'arrest',
  'domestic',
  'location_description',
  'beat',
  'fbi_code',
  'extract(month FROM date)::int',
  'extract(hour FROM date)::int',
  "date_trunc('month', date)::date",
  'extract(isodow FROM date)::int',
  "to_char(date, 'FMDay')",
  'block',
];

/** Random SQL of the shapes a model writes: COUNT(*) with WHERE on type, year, place, arrest ..., GROUP BY, ORDER BY, LIMIT. */
function randomModelSql(r: Random, years: [number, number]): { sql: string; ordered: boolean } {
  const pick = <T>(xs: readonly T[]) => xs[r.int(0, xs.length - 1)];
  const keys = [...new Set(Array.from({ length: r.int(0, 2) }, () => pick(KEYS)))];
  const where: string[] = [];
  if (r.chance(0.5)) where.push(r.chance(0.6) ? `primary_type = ${pick(TYPES)}` : `primary_type IN (${pick(TYPES)}, ${pick(TYPES)})`);
  const y = r.int(years[0], years[1]);
  const day = (m: number, d: number) => `'${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}'`;
  switch (r.int(0, 5)) {
    case 0:
      where.push(`year = ${y}`);
      break;
    case 1:
      where.push(`year BETWEEN ${y} AND ${Math.min(y + 2, years[1])}`);
      break;
    case 2:
      where.push(`date >= ${day(r.int(1, 6), 1)} AND date < ${day(r.int(7, 12), 1)}`);
      break;
    case 3:
      where.push(`date >= ${day(r.int(1, 6), r.int(1, 28))} AND date < ${day(r.int(7, 12), r.int(1, 28))}`);
      break;
    case 4:
      where.push(`date >= ${day(1, 1)}::date`);
      break;
  }
  if (r.chance(0.2)) where.push(r.chance(0.5) ? 'arrest' : 'NOT arrest');
  if (r.chance(0.15)) where.push('domestic = true');
  if (r.chance(0.15)) where.push(`district = ${pick([1, 6, 8, 11, 12, 18])}`);
  if (r.chance(0.1)) where.push(`community_area IN (${pick([8, 25, 28])}, ${pick([32, 43, 68])})`);
  if (r.chance(0.1)) where.push(`ward = ${pick([2, 24, 27, 42])}`);
  if (r.chance(0.1)) where.push("location_description = 'STREET'");
  if (r.chance(0.1)) where.push('extract(hour FROM date) >= 22');
  if (r.chance(0.1)) where.push('extract(isodow FROM date) IN (6, 7)');
  if (r.chance(0.05)) where.push("date <= '2019-06-30'"); // never moves: a day's later hours
  const measure = pick([
    'count(*) AS incidents',
    'count(*)',
    'count(*) FILTER (WHERE arrest) AS arrests',
    "count(*) FILTER (WHERE location_description = 'STREET')",
    'round(100.0 * count(*) FILTER (WHERE arrest) / nullif(count(*), 0), 2) AS arrest_pct',
    'count(DISTINCT beat) AS beats',
    'min(year) AS first_year',
    'round(100.0 * avg(arrest::int), 2) AS arrest_pct',
    'avg(CASE WHEN domestic THEN 1 WHEN arrest THEN 0 END)',
    'sum(domestic::int) AS domestic',
  ]);
  // now and then the community area's name, from the lookup table joined on its key
  const named = r.chance(0.15);
  if (named) keys.unshift('name');
  const select = [...keys, measure].join(', ');
  const from = named ? `crimes ${r.chance(0.5) ? 'JOIN' : 'LEFT JOIN'} community_areas USING (community_area)` : 'crimes';
  let sql = `SELECT ${select} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  if (!keys.length) return { sql, ordered: true };
  sql += ` GROUP BY ${keys.map((_, i) => i + 1).join(', ')}`;
  if (r.chance(0.2)) sql += ' HAVING count(*) > 5';
  if (!r.chance(0.6)) return { sql, ordered: false };
  // a full order, so that a LIMIT cuts the same rows both ways
  const value = keys.length + 1;
  sql += ` ORDER BY ${value} DESC NULLS LAST, ${keys.map((_, i) => `${i + 1} NULLS LAST`).join(', ')}`;
  if (r.chance(0.5)) sql += ` LIMIT ${r.int(1, 20)}`;
  return { sql, ordered: true };
}

describe('moved SQL answers exactly as crimes', () => {
  it('400 random queries of the shapes models write', async () => {
    const { rows: span } = await data.db.pool.query<{ lo: number; hi: number }>('SELECT min(year) AS lo, max(year) AS hi FROM crimes');
    const r = new Random(35);
    const used = new Map<string, number>();
    let stayed = 0;
    for (let i = 0; i < 400; i++) {
      const { sql, ordered } = randomModelSql(r, [span[0].lo, span[0].hi]);
      const got = await bothWays(sql, ordered);
      if (!got) {
        stayed++;
        continue;
      }
      for (const t of got.moved.rollups) used.set(t, (used.get(t) ?? 0) + 1);
      expect(got.onRollup, `${sql}\n${got.moved.sql}`).toEqual(got.asWritten);
    }
    // most move, and onto many rollups; those that stay read what no rollup keeps
    expect(stayed).toBeLessThan(240);
    expect(used.size).toBeGreaterThan(8);
  });

  it("the benchmark's gold SQL (what a perfect model writes)", async () => {
    let moved = 0;
    for (const item of loadBenchmarks()) {
      const ordered = /\border\s+by\b/i.test(item.sql.replace(/over\s*\([^)]*\)/gi, ''));
      const got = await bothWays(item.sql, ordered);
      if (!got) continue;
      moved++;
      expect(got.onRollup, `${item.id} ${item.question}\n${got.moved.sql}`).toEqual(got.asWritten);
    }
    expect(moved).toBeGreaterThan(40);
  });

  it('SQL compiled from 600 random plans against crimes', async () => {
    const { rows: span } = await data.db.pool.query<{ lo: number; hi: number }>('SELECT min(year) AS lo, max(year) AS hi FROM crimes');
    let moved = 0;
    for (const p of randomPlans(600, 36, [span[0].lo, span[0].hi])) {
      let sql: string;
      try {
        sql = compilePlan(p.plan, p.choices, { rollups: false }).sql;
      } catch (error) {
        if (error instanceof PlanCompileError) continue;
        throw error;
      }
      const got = await bothWays(sql, true);
      if (!got) continue;
      moved++;
      expect(got.onRollup, `${JSON.stringify(p.plan)}\n${got.moved.sql}`).toEqual(got.asWritten);
    }
    expect(moved).toBeGreaterThan(100);
  });
});
