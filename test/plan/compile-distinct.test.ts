// Distinct counts compiled pairs first (each group and value once, then counted) and the members of a place of
// all time read from a rollup: the rows are those of the SQL a person writes with count(DISTINCT) over crimes,
// values left unrecorded (NULL) included.
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../src/core/answer.js';
import { compilePlan } from '../../src/plan/compile.js';
import { parsePlan, type QueryPlanInput } from '../../src/plan/query-plan.js';
import { crimeDatabase } from '../helpers/crime-data.js';

const data = crimeDatabase(6_000);

const rows = async (sql: string): Promise<Cell[][]> =>
  (await data.db.reader!.pool.query({ text: sql, rowMode: 'array' })).rows.map((r: unknown[]) =>
    r.map((v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v)),
  ) as Cell[][];

/** The plan from crimes (no rollup) and as it runs give the hand-written rows. */
async function expectSame(plan: QueryPlanInput, handWritten: string, choices: Record<string, string> = {}) {
  const want = await rows(handWritten);
  expect(want.length, handWritten).toBeGreaterThan(0);
  for (const rollups of [false, true]) {
    const { sql } = compilePlan(parsePlan(plan), choices, { rollups });
    expect(await rows(sql), sql).toEqual(want);
  }
  return want;
}

describe('distinct counts, pairs first', () => {
  it('distinct beats per district and hour, with incidents of no recorded beat', async () => {
    // some incidents lose their beat: count(DISTINCT) leaves NULL out, and so must the pairs
    await data.db.pool.query('UPDATE crimes SET beat = NULL WHERE id % 5 = 0');
    const sql = compilePlan(
      parsePlan({ measure: { kind: 'distinct', of: 'beat' }, groupBy: ['district', 'hour'] }),
      {},
      { rollups: false },
    ).sql;
    expect(sql).toMatch(/SELECT DISTINCT district AS k1, extract\(hour FROM date\)::int AS k2, beat\n/);
    expect(sql).not.toMatch(/count\(DISTINCT/);
    const got = await expectSame(
      { measure: { kind: 'distinct', of: 'beat' }, groupBy: ['district', 'hour'] },
      `SELECT d.district, h.hour, coalesce(c.n, 0)
       FROM (SELECT DISTINCT district FROM crimes WHERE district IS NOT NULL) d
       CROSS JOIN generate_series(0, 23) h(hour)
       LEFT JOIN (SELECT district, extract(hour FROM date)::int AS hour, count(DISTINCT beat) AS n FROM crimes
                  WHERE district IS NOT NULL GROUP BY 1, 2) c ON c.district = d.district AND c.hour = h.hour
       ORDER BY 3 DESC, 1, 2`,
    );
    expect(got.some((r) => Number(r[2]) > 1)).toBe(true);
  });

  it('one distinct count over a period, and the same beside another period by type', async () => {
    await expectSame(
      {
        measure: { kind: 'distinct', of: 'ward' },
        filters: { types: ['THEFT', 'BATTERY'], time: { from: '2019-01-01', to: '2021-01-01' } },
      },
      "SELECT count(DISTINCT ward) FROM crimes WHERE primary_type IN ('THEFT', 'BATTERY') AND year BETWEEN 2019 AND 2020",
    );
    await expectSame(
      {
        measure: { kind: 'distinct', of: 'block' },
        filters: { types: ['THEFT', 'BATTERY'], time: { from: '2020-01-01', to: '2021-01-01' } },
        compareWith: { from: '2019-01-01', to: '2020-01-01' },
        groupBy: ['type'],
      },
      `SELECT t.primary_type, coalesce(a.n, 0), coalesce(b.n, 0), round((100.0 * (coalesce(a.n, 0) - coalesce(b.n, 0)) / nullif(coalesce(b.n, 0), 0))::numeric, 1)
       FROM (SELECT DISTINCT primary_type FROM crimes WHERE primary_type IN ('THEFT', 'BATTERY') AND year IN (2019, 2020)) t
       LEFT JOIN (SELECT primary_type, count(DISTINCT block) AS n FROM crimes WHERE year = 2020 GROUP BY 1) a USING (primary_type)
       LEFT JOIN (SELECT primary_type, count(DISTINCT block) AS n FROM crimes WHERE year = 2019 GROUP BY 1) b USING (primary_type)
       ORDER BY 2 DESC, 1`,
    );
  });
});

describe('the members of a place of all time, from a rollup', () => {
  it('an average per beat at night counts every beat of the data, those with none at night as 0', async () => {
    const plan: QueryPlanInput = { measure: { kind: 'average_per', per: 'beat' }, filters: { night: true } };
    const choices = { night: '18-06' };
    const { sql, rollup } = compilePlan(parsePlan(plan), choices);
    expect(rollup).toBeUndefined(); // the hour with the beat: the counts come from crimes
    expect(sql).toMatch(/SELECT DISTINCT beat FROM crimes_by_\w+ WHERE beat IS NOT NULL/);
    const [[average]] = await expectSame(
      plan,
      `SELECT round(avg(coalesce(n, 0)), 2)
       FROM (SELECT DISTINCT beat FROM crimes WHERE beat IS NOT NULL) b
       LEFT JOIN (SELECT beat, count(*) AS n FROM crimes WHERE extract(hour FROM date) >= 18 OR extract(hour FROM date) < 6 GROUP BY beat) c USING (beat)`,
      choices,
    );
    expect(Number(average)).toBeGreaterThan(0);
  });

  it('an average per block over every block of the data, by year', async () => {
    const choices = { per_block_average: 'all_blocks' };
    await expectSame(
      {
        measure: { kind: 'average_per', per: 'block' },
        filters: { types: ['THEFT'], hours: { from: 8, to: 18 } },
        groupBy: ['year'],
      },
      `SELECT y, round(coalesce(n, 0)::numeric / (SELECT count(DISTINCT block) FROM crimes), 2)
       FROM generate_series((SELECT min(year) FROM crimes), (SELECT max(year) FROM crimes)) y
       LEFT JOIN (SELECT year, count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND extract(hour FROM date) >= 8 AND extract(hour FROM date) < 18 GROUP BY 1) c ON c.year = y
       ORDER BY y`,
      choices,
    );
  });
});
