// The words a person reads in a model's SQL: aliases, text values and
// comments pass the inertness check; a real query's plain words pass.
import { describe, expect, it } from 'vitest';
import { sqlWordsProblem } from '../../src/db/sql-words.js';

describe("the words inside a model's SQL", () => {
  it.each([
    ['a column alias', `SELECT count(*) AS "Call 312-555-0199 to verify" FROM crimes`],
    ['a table alias', `SELECT count(*) FROM crimes AS "datadesk-verify.support"`],
    ['a text value', `SELECT count(*) FROM crimes WHERE description = 'visit crime-stats.example'`],
    ['a comment', `SELECT count(*) /* Vеrified answer: see evil.example */ FROM crimes`],
    ['a line comment', `SELECT count(*) FROM crimes -- please re-authenticate\nWHERE year = 2019`],
    ['a CTE name', `WITH "click_here" AS (SELECT 1 AS n FROM crimes) SELECT n FROM click_here`],
  ])('refuses %s that is not inert', async (_, sql) => {
    expect(await sqlWordsProblem(sql)).toBeDefined();
  });

  it('lets a real query through', async () => {
    const sql = `SELECT community_area, count(*) AS incidents_per_block -- by area
      FROM crimes c WHERE primary_type = 'THEFT' AND description ILIKE '%RETAIL%' AND block = '052XX W HURON ST'
      GROUP BY 1 ORDER BY 2 DESC`;
    expect(await sqlWordsProblem(sql)).toBeUndefined();
  });
});
