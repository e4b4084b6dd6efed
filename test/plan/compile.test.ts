// The plan compiler against hand-written SQL on real PostgreSQL: every shape
// gives the same rows as the query a person would write, passes the guard, and
// fills calendar and cyclic axes with their empty members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cell } from '../../src/core/answer.js';
import { checkSql } from '../../src/db/sql-guard.js';
import { shownResult } from '../../src/core/inert-text.js';
import { compilePlan, periodLabel } from '../../src/plan/compile.js';
import { parsePlan, type QueryPlanInput } from '../../src/plan/query-plan.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 6_000);
});
afterAll(async () => db?.drop());

const rows = async (sql: string): Promise<Cell[][]> =>
  (await db.reader!.pool.query({ text: sql, rowMode: 'array' })).rows.map(
    (r: unknown[]) =>
      r.map((v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v instanceof Date ? v.toISOString() : v)) as Cell[],
  );

async function expectSame(plan: QueryPlanInput, handWritten: string, choices: Record<string, string> = {}): Promise<Cell[][]> {
  const compiled = compilePlan(parsePlan(plan), choices);
  expect(await checkSql(compiled.sql), compiled.sql).toMatchObject({ ok: true });
  const got = await rows(compiled.sql);
  expect(got, compiled.sql).toEqual(await rows(handWritten));
  return got;
}

describe('compilePlan', () => {
  it('a count with a type and a whole year uses the year column', async () => {
    const plan: QueryPlanInput = {
      measure: { kind: 'count' },
      filters: { types: ['THEFT'], time: { from: '2019-01-01', to: '2020-01-01' } },
    };
    expect(compilePlan(parsePlan(plan), {}, { rollups: false }).sql).toBe(
      "SELECT count(*) AS incidents\nFROM crimes\nWHERE primary_type = 'THEFT'\n  AND year = 2019",
    );
    // as it runs: from the smallest rollup that keeps type and year, named in the SQL shown
    expect(compilePlan(parsePlan(plan)).sql).toBe(
      "SELECT coalesce(sum(n), 0) AS incidents\nFROM crimes_by_year_type\nWHERE primary_type = 'THEFT'\n  AND year = 2019",
    );
    await expectSame(plan, "SELECT count(*) FROM crimes WHERE primary_type = 'THEFT' AND year = 2019");
  });

  it('a single day, a place and an arrest flag', async () => {
    const [[n]] = await rows('SELECT date::date::text FROM crimes WHERE community_area = 25 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1');
    const day = String(n);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await expectSame(
      { measure: { kind: 'count' }, filters: { areas: [25], arrest: false, time: { from: day, to: next } } },
      `SELECT count(*) FROM crimes WHERE community_area = 25 AND NOT arrest AND date::date = '${day}'`,
    );
  });

  it('locations left out: every other place and the incidents of no recorded location', async () => {
    await db.pool.query(`UPDATE crimes SET location_description = NULL WHERE id % 53 = 0`);
    await expectSame(
      { measure: { kind: 'count' }, groupBy: ['year'], filters: { types: ['ROBBERY'], locations: ['STREET'], exceptLocations: true } },
      `SELECT year, count(*) FROM crimes WHERE primary_type = 'ROBBERY' AND location_description IS DISTINCT FROM 'STREET' GROUP BY year ORDER BY year`,
    );
    await expectSame(
      { measure: { kind: 'count' }, filters: { locations: ['STREET', 'SIDEWALK'], exceptLocations: true } },
      `SELECT count(*) FROM crimes WHERE location_description IS NULL OR location_description NOT IN ('STREET', 'SIDEWALK')`,
    );
  });

  it('monthly homicides in a year: all 12 months, the empty ones as 0', async () => {
    const got = await expectSame(
      { measure: { kind: 'count' }, filters: { types: ['HOMICIDE'], time: { from: '2019-01-01', to: '2020-01-01' } }, groupBy: ['month'] },
      `SELECT to_char(m, 'FMMonth'), (SELECT count(*) FROM crimes WHERE primary_type = 'HOMICIDE' AND date_trunc('month', date) = m)
       FROM generate_series('2019-01-01'::date, '2019-12-01', interval '1 month') m ORDER BY m`,
    );
    expect(got).toHaveLength(12);
    expect(got.some((r) => r[1] === 0)).toBe(true); // a few thousand rows: some months have no homicide
  });

  it('by weekday: seven rows with the weekday names, Monday first', async () => {
    const got = await expectSame(
      { measure: { kind: 'count' }, filters: { types: ['BURGLARY'] }, groupBy: ['weekday'] },
      `SELECT to_char(make_date(2024, 1, d), 'FMDay'), (SELECT count(*) FROM crimes WHERE primary_type = 'BURGLARY' AND extract(isodow FROM date) = d)
       FROM generate_series(1, 7) d ORDER BY d`,
    );
    expect(got.map((r) => r[0])).toEqual(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']);
  });

  it('by hour: all 24 hours; after 10pm only 22 and 23; a month-of-year axis narrowed to summer', async () => {
    expect(
      await expectSame(
        { measure: { kind: 'count' }, filters: { types: ['ARSON'] }, groupBy: ['hour'] },
        `SELECT h, (SELECT count(*) FROM crimes WHERE primary_type = 'ARSON' AND extract(hour FROM date) = h) FROM generate_series(0, 23) h ORDER BY h`,
      ),
    ).toHaveLength(24);
    expect(
      (
        await expectSame(
          { measure: { kind: 'count' }, filters: { hours: { from: 22, to: 24 } }, groupBy: ['hour'] },
          `SELECT h, (SELECT count(*) FROM crimes WHERE extract(hour FROM date) = h) FROM generate_series(22, 23) h ORDER BY h`,
        )
      ).map((r) => r[0]),
    ).toEqual([22, 23]);
    expect(
      (
        await expectSame(
          { measure: { kind: 'count' }, filters: { months: [6, 7, 8] }, groupBy: ['month_of_year'] },
          `SELECT to_char(make_date(2000, m, 1), 'FMMonth'), (SELECT count(*) FROM crimes WHERE extract(month FROM date) = m) FROM unnest(ARRAY[6, 7, 8]) m ORDER BY m`,
        )
      ).map((r) => r[0]),
    ).toEqual(['June', 'July', 'August']);
  });

  it('hours that wrap past midnight', async () => {
    await expectSame(
      { measure: { kind: 'count' }, filters: { hours: { from: 22, to: 6 } } },
      'SELECT count(*) FROM crimes WHERE extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6',
    );
  });

  it('top 5 community areas by name, ties broken by name; bottom 3 districts', async () => {
    const top = await expectSame(
      { measure: { kind: 'count' }, filters: { types: ['THEFT'] }, groupBy: ['community_area'], top: { n: 5, order: 'desc' } },
      `SELECT a.name, count(c.id) FROM community_areas a LEFT JOIN crimes c ON c.community_area = a.community_area AND c.primary_type = 'THEFT'
       GROUP BY a.community_area, a.name ORDER BY count(c.id) DESC, a.name LIMIT 5`,
    );
    expect(typeof top[0][0]).toBe('string');
    await expectSame(
      { measure: { kind: 'count' }, groupBy: ['district'], top: { n: 3, order: 'asc' } },
      'SELECT district, count(*) FROM crimes GROUP BY district ORDER BY count(*) ASC, district LIMIT 3',
    );
    await expectSame(
      { measure: { kind: 'count' }, filters: { time: { from: '2019-11-01', to: '2020-03-01' } }, groupBy: ['month'] },
      `SELECT to_char(m, 'FMMonth YYYY'), (SELECT count(*) FROM crimes WHERE date_trunc('month', date) = m)
       FROM generate_series('2019-11-01'::date, '2020-02-01', interval '1 month') m ORDER BY m`,
    );
  });

  it('two dimensions: types by year, with the empty combinations as 0', async () => {
    await expectSame(
      {
        measure: { kind: 'count' },
        filters: { types: ['ROBBERY', 'HOMICIDE'], time: { from: '2018-01-01', to: '2020-01-01' } },
        groupBy: ['year', 'type'],
      },
      `SELECT y, t, (SELECT count(*) FROM crimes WHERE year = y AND primary_type = t)
       FROM generate_series(2018, 2019) y CROSS JOIN (SELECT DISTINCT primary_type AS t FROM crimes WHERE primary_type IN ('ROBBERY', 'HOMICIDE') AND year BETWEEN 2018 AND 2019) types
       ORDER BY y, t`,
    );
  });

  it('the share of thefts that led to an arrest, overall and by year', async () => {
    await expectSame(
      { measure: { kind: 'share', part: { arrest: true } }, filters: { types: ['THEFT'] } },
      "SELECT round(100.0 * count(*) FILTER (WHERE arrest) / count(*), 2), count(*) FILTER (WHERE arrest), count(*) FROM crimes WHERE primary_type = 'THEFT'",
    );
    await expectSame(
      {
        measure: { kind: 'share', part: { arrest: true } },
        filters: { types: ['THEFT'], time: { from: '2018-01-01', to: '2020-01-01' } },
        groupBy: ['year'],
      },
      `SELECT year, round(100.0 * count(*) FILTER (WHERE arrest) / count(*), 2), count(*) FILTER (WHERE arrest), count(*) FROM crimes
       WHERE primary_type = 'THEFT' AND year BETWEEN 2018 AND 2019 GROUP BY year ORDER BY year`,
    );
  });

  it('average and median per day over every day of the period, days without incidents included', async () => {
    await expectSame(
      { measure: { kind: 'average_per', per: 'day' }, filters: { types: ['BATTERY'], time: { from: '2019-01-01', to: '2020-01-01' } } },
      "SELECT round(count(*)::numeric / 365, 2) FROM crimes WHERE primary_type = 'BATTERY' AND year = 2019",
    );
    await expectSame(
      {
        measure: { kind: 'percentile_per', per: 'day', p: 0.5 },
        filters: { types: ['BATTERY'], time: { from: '2019-01-01', to: '2020-01-01' } },
      },
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY (SELECT count(*) FROM crimes WHERE primary_type = 'BATTERY' AND date::date = d::date))
       FROM generate_series('2019-01-01'::date, '2019-12-31', interval '1 day') d`,
    );
  });

  it('average per block follows the thread choice', async () => {
    const withIncidents = await expectSame(
      { measure: { kind: 'average_per', per: 'block' }, filters: { types: ['BURGLARY'] } },
      "SELECT round(avg(n), 2) FROM (SELECT block, count(*) n FROM crimes WHERE primary_type = 'BURGLARY' GROUP BY block) t",
      { per_block_average: 'blocks_with_incidents' },
    );
    const allBlocks = await expectSame(
      { measure: { kind: 'average_per', per: 'block' }, filters: { types: ['BURGLARY'] } },
      "SELECT round((SELECT count(*) FROM crimes WHERE primary_type = 'BURGLARY')::numeric / (SELECT count(DISTINCT block) FROM crimes), 2)",
      { per_block_average: 'all_blocks' },
    );
    expect(Number(allBlocks[0][0])).toBeLessThan(Number(withIncidents[0][0]));
    expect(() => compilePlan(parsePlan({ measure: { kind: 'average_per', per: 'block' } }))).toThrow(/no choice for "per_block_average"/);
  });

  it('glossary terms compile to the chosen definition and are listed as assumptions', async () => {
    const plan = parsePlan({ measure: { kind: 'count' }, filters: { night: true, weekend: true, category: 'violent', areas: [25] } });
    const compiled = compilePlan(plan, { night: '22-06', weekend: 'sat_sun', violent_crime: 'fbi_index' });
    expect(compiled.assumptions).toEqual(['violent crime: FBI violent index', 'weekend: Saturday and Sunday', 'night: 22:00-06:00']);
    await expectSame(
      plan,
      `SELECT count(*) FROM crimes WHERE community_area = 25 AND fbi_code IN ('01A', '02', '03', '04A', '04B')
       AND extract(isodow FROM date) IN (6, 7) AND (extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6)`,
      { night: '22-06', weekend: 'sat_sun', violent_crime: 'fbi_index' },
    );
  });

  it('compares two periods with the change in percent', async () => {
    await expectSame(
      {
        measure: { kind: 'count' },
        filters: { types: ['THEFT'], time: { from: '2019-01-01', to: '2020-01-01' } },
        compareWith: { from: '2018-01-01', to: '2019-01-01' },
      },
      `SELECT '2019', a, '2018', b, round(100.0 * (a - b) / b, 1) FROM (SELECT count(*) FILTER (WHERE year = 2019) a, count(*) FILTER (WHERE year = 2018) b FROM crimes WHERE primary_type = 'THEFT') t`,
    );
  });

  it('compares grouped answers: a top 5 of this period with the same types in the other, by month, by month of the year and type, a share by district, an average per day', async () => {
    const y2019 = { from: '2019-01-01', to: '2020-01-01' };
    const y2018 = { from: '2018-01-01', to: '2019-01-01' };
    const change = (a: string, b: string) => `round(100.0 * (${a} - ${b}) / nullif(${b}, 0), 1)`;
    // the top 5 of 2019 (every type tied at the cut kept), each with its 2018 count
    await expectSame(
      { measure: { kind: 'count' }, filters: { time: y2019 }, groupBy: ['type'], top: { n: 5, order: 'desc' }, compareWith: y2018 },
      `WITH a AS (SELECT primary_type AS t, count(*) AS n FROM crimes WHERE year = 2019 GROUP BY 1),
            b AS (SELECT primary_type AS t, count(*) AS n FROM crimes WHERE year = 2018 GROUP BY 1),
            r AS (SELECT a.t, a.n AS na, coalesce(b.n, 0) AS nb, rank() OVER (ORDER BY a.n DESC) AS place FROM a LEFT JOIN b USING (t))
       SELECT t, na, nb, ${change('na', 'nb')} FROM r WHERE place <= 5 ORDER BY place, t`,
    );
    // each month of 2019 against the same month of 2018, empty months as 0
    await expectSame(
      { measure: { kind: 'count' }, filters: { types: ['HOMICIDE'], time: y2019 }, groupBy: ['month'], compareWith: y2018 },
      `SELECT to_char(m, 'FMMonth'), a, b, ${change('a', 'b')} FROM (
         SELECT m, (SELECT count(*) FROM crimes WHERE primary_type = 'HOMICIDE' AND date_trunc('month', date) = m) AS a,
                   (SELECT count(*) FROM crimes WHERE primary_type = 'HOMICIDE' AND date_trunc('month', date) = m - interval '1 year') AS b
         FROM generate_series('2019-01-01'::timestamp, '2019-12-01', interval '1 month') m) t ORDER BY m`,
    );
    // two groupings: month of the year and type, every combination
    await expectSame(
      {
        measure: { kind: 'count' },
        filters: { types: ['THEFT', 'BATTERY'], time: y2019 },
        groupBy: ['month_of_year', 'type'],
        compareWith: y2018,
      },
      `SELECT to_char(make_date(2000, mo, 1), 'FMMonth'), t, a, b, ${change('a', 'b')} FROM (
         SELECT mo, t, (SELECT count(*) FROM crimes WHERE primary_type = t AND year = 2019 AND extract(month FROM date) = mo) AS a,
                       (SELECT count(*) FROM crimes WHERE primary_type = t AND year = 2018 AND extract(month FROM date) = mo) AS b
         FROM generate_series(1, 12) mo CROSS JOIN (VALUES ('BATTERY'), ('THEFT')) v(t)) x ORDER BY mo, t`,
    );
    // a share moves in percentage points
    await expectSame(
      {
        measure: { kind: 'share', part: { arrest: true } },
        filters: { types: ['THEFT'], time: y2019 },
        groupBy: ['district'],
        compareWith: y2018,
      },
      `WITH s AS (SELECT district, year, round(100.0 * count(*) FILTER (WHERE arrest) / count(*), 2) AS pct FROM crimes
                  WHERE primary_type = 'THEFT' AND year IN (2018, 2019) AND district IS NOT NULL GROUP BY 1, 2)
       SELECT d.district, a.pct, b.pct, round(a.pct - b.pct, 2)
       FROM (SELECT DISTINCT district FROM s) d LEFT JOIN s a ON a.district = d.district AND a.year = 2019
       LEFT JOIN s b ON b.district = d.district AND b.year = 2018 ORDER BY d.district`,
    );
    // an average per day over every day of each year
    await expectSame(
      { measure: { kind: 'average_per', per: 'day' }, filters: { types: ['THEFT'], time: y2019 }, compareWith: y2018 },
      `WITH per_day AS (SELECT d::date AS day, (SELECT count(*) FROM crimes WHERE primary_type = 'THEFT' AND date::date = d::date) AS n
                        FROM generate_series('2018-01-01'::date, '2019-12-31', interval '1 day') d),
            a AS (SELECT round(avg(n), 2) AS v FROM per_day WHERE day >= '2019-01-01'),
            b AS (SELECT round(avg(n), 2) AS v FROM per_day WHERE day < '2019-01-01')
       SELECT '2019', a.v, '2018', b.v, ${change('a.v', 'b.v')} FROM a, b`,
    );
  });

  it("a compared period's column says its period in words every column name passes (no 'column 2')", () => {
    const columns = (time: { from: string; to: string }, compareWith: { from: string; to: string }) => {
      const sql = compilePlan(parsePlan({ measure: { kind: 'count' }, filters: { time }, groupBy: ['type'], compareWith })).sql;
      return [...sql.matchAll(/ AS (incidents_\w+)/g)].map((m) => m[1]);
    };
    const shown = (names: string[]) => shownResult({ columns: names, rows: [] }).columns;
    const years = columns({ from: '2001-01-01', to: '2026-01-01' }, { from: '2018-01-01', to: '2019-01-01' });
    expect(years).toEqual(['incidents_2001_to_2025', 'incidents_2018']);
    expect(shown(years)).toEqual(years);
    const days = columns({ from: '2019-04-02', to: '2019-07-01' }, { from: '2018-04-02', to: '2018-07-01' });
    expect(days).toEqual(['incidents_20190402_to_20190630', 'incidents_20180402_to_20180630']);
    expect(shown(days)).toEqual(days);
  });

  it('distinct blocks and property crimes', async () => {
    await expectSame(
      { measure: { kind: 'distinct', of: 'block' }, filters: { category: 'property', time: { from: '2019-03-01', to: '2019-07-01' } } },
      "SELECT count(DISTINCT block) FROM crimes WHERE primary_type IN ('THEFT', 'BURGLARY', 'MOTOR VEHICLE THEFT', 'ARSON') AND date >= '2019-03-01' AND date < '2019-07-01'",
    );
  });

  it('the same plan always compiles to the same SQL, and literals are quoted', () => {
    const plan = parsePlan({ measure: { kind: 'count' }, filters: { blocks: ["001XX O'HARE ST"], descriptions: ['50%_off'] } });
    expect(compilePlan(plan).sql).toBe(compilePlan(parsePlan(JSON.parse(JSON.stringify(plan)))).sql);
    expect(compilePlan(plan).sql).toContain("block = '001XX O''HARE ST'");
    expect(compilePlan(plan).sql).toContain("description ILIKE '%50\\%\\_off%'");
  });

  it('labels periods as a person would', () => {
    expect(periodLabel({ from: '2019-01-01', to: '2020-01-01' })).toBe('2019');
    expect(periodLabel({ from: '2018-01-01', to: '2021-01-01' })).toBe('2018-2020');
    expect(periodLabel({ from: '2021-03-01', to: '2021-04-01' })).toBe('2021-03');
    expect(periodLabel({ from: '2019-07-04', to: '2019-07-05' })).toBe('2019-07-04');
    expect(periodLabel({ from: '2025-04-02', to: '2025-07-01' })).toBe('2025-04-02 to 2025-06-30');
  });
});
