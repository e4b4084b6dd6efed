// The EXPLAIN budget (src/db/explain-budget.ts) on collecting aggregates used as window functions: a WindowAgg node, not an
// Aggregate, so `string_agg(…) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)` was never
// counted. Judged on PostgreSQL's own EXPLAIN of a small table, with a budget scaled down to its size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXPLAIN_BUDGET, explainBudgetProblem, type ExplainBudget } from '../../src/db/explain-budget.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const ROWS = 2_000;
/** the default budget, with a thousand values where it allows a million: the table here has two thousand rows */
const SMALL: ExplainBudget = { ...DEFAULT_EXPLAIN_BUDGET, collected: 1_000 };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, ROWS);
  await db.pool.query('ANALYZE crimes');
});
afterAll(async () => {
  await db?.drop();
});

const explain = async (sql: string) =>
  (await db.pool.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`)).rows[0]['QUERY PLAN'];

describe('collecting aggregates as window functions', () => {
  it.each([
    "SELECT string_agg(description, ',') OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM crimes",
    "SELECT length(string_agg(description, ', ') OVER (ORDER BY id)) FROM crimes",
    'SELECT array_agg(description) OVER (ORDER BY id) FROM crimes',
    'SELECT array_agg(block) OVER () FROM crimes',
    'SELECT id, cardinality(array_agg(lower(block)) OVER (PARTITION BY primary_type ORDER BY date)) FROM crimes',
    "SELECT max(n) FROM (SELECT length(string_agg(description, ',') OVER w) AS n FROM crimes WINDOW w AS (ORDER BY id)) s",
  ])('over more rows than the budget: refused, %s', async (sql) => {
    // (a window's output read by an outer aggregate is refused there first, by the Aggregate rule: the same count)
    expect(explainBudgetProblem(await explain(sql), SMALL)).toMatch(
      /^it would collect (up to about 2,000 values into a list as a window function \(at most 1,000\): count them, or use lag\(\) and lead\(\) for neighbouring rows|about 2,000 values into one list)/,
    );
  });

  it('within the budget, and windows that collect nothing: admitted', async () => {
    expect(explainBudgetProblem(await explain('SELECT array_agg(description) OVER (ORDER BY id) FROM crimes'))).toBeUndefined();
    expect(
      explainBudgetProblem(
        await explain('SELECT id, row_number() OVER (ORDER BY date), lag(block) OVER (ORDER BY date) FROM crimes'),
        SMALL,
      ),
    ).toBeUndefined();
    expect(
      explainBudgetProblem(
        await explain(
          "SELECT string_agg(primary_type, ',') OVER (ORDER BY n) FROM (SELECT primary_type, count(*) AS n FROM crimes GROUP BY 1) s",
        ),
        SMALL,
      ),
    ).toBeUndefined();
  });

  it('the Aggregate case is as it was', async () => {
    expect(explainBudgetProblem(await explain("SELECT string_agg(description, ',') FROM crimes"), SMALL)).toMatch(
      /^it would collect about 2,000 values into one list \(at most 1,000\)/,
    );
  });

  it('reads a WindowAgg from the JSON as PostgreSQL writes it', () => {
    const plan = (rows: number, output: string) => [
      {
        Plan: {
          'Node Type': 'WindowAgg',
          'Plan Rows': rows,
          'Plan Width': 40,
          Output: [output, 'id'],
          Plans: [{ 'Node Type': 'Sort', 'Plan Rows': rows, 'Plan Width': 18, Output: ['id', 'description'] }],
        },
      },
    ];
    expect(explainBudgetProblem(plan(8_000_000, "string_agg(description, ','::text) OVER (?)"))).toMatch(
      /^it would collect up to about 8\.0 million values into a list as a window function \(at most 1\.0 million\)/,
    );
    expect(explainBudgetProblem(plan(8_000_000, 'row_number() OVER (?)'))).toBeUndefined();
    expect(explainBudgetProblem(plan(500_000, "string_agg(description, ','::text) OVER (?)"))).toBeUndefined();
  });
});
