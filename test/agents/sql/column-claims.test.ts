import { describe, expect, it } from 'vitest';
import { columnClaimProblem } from '../../../src/agents/sql/column-claims.js';

describe('columnClaimProblem', () => {
  it.each([
    ["SELECT count(*) AS theft_percent FROM crimes WHERE primary_type = 'THEFT'", /"theft_percent" names a ratio, but it is a count/],
    ['SELECT district, sum(n) AS share FROM crimes_by_year_district GROUP BY 1', /"share" names a ratio/],
    ['SELECT count(id) AS "Arrest rate" FROM crimes', /"Arrest rate" names a ratio/],
    [
      "SELECT count(*) AS thefts_2018 FROM crimes WHERE primary_type = 'THEFT' AND year = 2019",
      /"thefts_2018" names 2018, but the query does not read 2018/,
    ],
    ['SELECT count(*) AS thefts FROM crimes WHERE year = 2019', /"thefts" names thefts, but the query does not select THEFT/],
    [
      "SELECT count(*) AS motor_vehicle_thefts FROM crimes WHERE primary_type = 'THEFT'",
      /names motor vehicle thefts, but the query does not select MOTOR VEHICLE THEFT/,
    ],
    ['SELECT count(*) AS a FROM crimes UNION ALL SELECT count(*) AS b FROM crimes WHERE year = 2019', undefined],
    ['SELECT count(*) AS "2017" FROM crimes WHERE year = 2019 UNION ALL SELECT 1 FROM crimes', /"2017" names 2017/],
  ])('%s', async (sql, problem) => {
    const got = await columnClaimProblem(sql);
    if (problem) expect(got).toMatch(problem);
    else expect(got).toBeUndefined();
  });

  it.each([
    'SELECT round(100.0 * count(*) FILTER (WHERE arrest) / count(*), 1) AS arrest_rate FROM crimes',
    'SELECT primary_type, count(*) * 100.0 / sum(count(*)) OVER () AS pct FROM crimes GROUP BY 1',
    'SELECT primary_type, count(*) OVER () AS share FROM crimes',
    "SELECT count(*) FILTER (WHERE year = 2018) AS thefts_2018, count(*) FILTER (WHERE year = 2019) AS thefts_2019 FROM crimes WHERE primary_type = 'THEFT'",
    "SELECT count(*) AS april_2019 FROM crimes WHERE date >= '2019-04-01' AND date < '2019-05-01'",
    'SELECT count(*) AS incidents FROM crimes',
    "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019",
    "SELECT count(*) AS thefts FROM crimes WHERE primary_type ILIKE '%theft%'",
    "SELECT count(*) FILTER (WHERE primary_type = 'MOTOR VEHICLE THEFT') AS motor_vehicle_thefts FROM crimes",
    'SELECT primary_type, count(*) AS crimes FROM crimes GROUP BY 1',
    'not sql at all',
  ])('names what it computes: %s', async (sql) => {
    expect(await columnClaimProblem(sql)).toBeUndefined();
  });
});
