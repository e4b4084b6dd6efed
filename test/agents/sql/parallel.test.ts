// Answers run as plain statements, which PostgreSQL may run with parallel
// workers (a cursor never gets them), and still report the true row count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultStatement, runSql } from '../../../src/agents/sql/execute.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
});
afterAll(async () => db?.drop());

const SQL = 'SELECT primary_type, count(*) AS incidents FROM crimes GROUP BY primary_type ORDER BY incidents DESC';

describe('running an answer', () => {
  it('may use parallel workers (EXPLAIN ANALYZE of the statement it sends)', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN READ ONLY');
      // a small test table: make parallelism worth it to the planner, as 8.5M rows do by themselves
      for (const set of [
        'parallel_setup_cost = 0',
        'parallel_tuple_cost = 0',
        'min_parallel_table_scan_size = 0',
        'max_parallel_workers_per_gather = 2',
      ]) {
        await client.query(`SET LOCAL ${set}`);
      }
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${resultStatement(SQL, 1_000)}`);
      const plan = JSON.stringify(rows[0]['QUERY PLAN']);
      expect(plan).toMatch(/"Workers Launched":[1-9]/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  it('keeps the first rows and reports the true total', async () => {
    const types = (await db.pool.query('SELECT count(DISTINCT primary_type)::int AS n FROM crimes')).rows[0].n;
    const r = await runSql(db.reader!.pool, SQL, 10_000, 5);
    expect(r.rows).toHaveLength(5);
    expect(r).toMatchObject({ rowCount: types, truncated: true, columns: ['primary_type', 'incidents'] });
    const all = await runSql(db.reader!.pool, SQL, 10_000, 1_000);
    expect(all).toMatchObject({ rowCount: types, truncated: false });
    expect(all.rows.slice(0, 5)).toEqual(r.rows);
  });
});
