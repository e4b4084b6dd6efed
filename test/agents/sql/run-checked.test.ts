// A checked run: the EXPLAIN and the query in one read-only transaction, nothing run unless the EXPLAIN passed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { runChecked, runSql, validateSql } from '../../../src/agents/sql/execute.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 2_000);
});
afterAll(async () => db?.drop());

/** The texts sent on connections of `pool` while `work` runs: each is one round trip. */
async function sent<T>(pool: pg.Pool, work: () => Promise<T>): Promise<{ value: T; texts: string[] }> {
  const texts: string[] = [];
  const seen = new WeakSet<object>();
  const spy = (client: pg.PoolClient) => {
    if (seen.has(client)) return;
    seen.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const q = args[0] as string | { text: string };
      texts.push(typeof q === 'string' ? q : q.text);
      return query(...args);
    };
  };
  pool.on('acquire', spy);
  try {
    return { value: await work(), texts };
  } finally {
    pool.off('acquire', spy);
  }
}

const SQL = 'SELECT primary_type, count(*) AS incidents FROM crimes GROUP BY primary_type ORDER BY incidents DESC';

describe('runChecked', () => {
  it('EXPLAINs and runs in one transaction: 4 round trips, where validate then run took 6', async () => {
    const { value, texts } = await sent(db.reader!.pool, () => runChecked(db.reader!.pool, SQL, { statementTimeoutMs: 10_000 }));
    expect(value).toMatchObject({ ok: true, ran: SQL });
    expect(value.ok && value.result.rowCount).toBeGreaterThan(1);
    expect(texts).toHaveLength(4);
    expect(texts[0]).toMatch(/^BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = 10000; SET LOCAL jit = off$/);
    expect(texts[1]).toMatch(/^EXPLAIN \(VERBOSE, FORMAT JSON\) SELECT primary_type/);
    expect(texts[2]).toMatch(/^SELECT \* FROM \(\nSELECT primary_type/);
    expect(texts[3]).toBe('COMMIT');
    const old = await sent(db.reader!.pool, async () => {
      await validateSql(db.reader!.pool, SQL, 10_000);
      return runSql(db.reader!.pool, SQL, 10_000);
    });
    expect(old.texts).toHaveLength(6);
    expect(value.ok && value.result).toEqual(old.value);
  });

  it('runs the moved form when PostgreSQL accepts it, in the same transaction', async () => {
    const moved = 'SELECT primary_type, count(*) AS incidents FROM crimes WHERE true GROUP BY primary_type ORDER BY incidents DESC';
    const { value, texts } = await sent(db.reader!.pool, () => runChecked(db.reader!.pool, SQL, { statementTimeoutMs: 10_000, moved }));
    expect(value).toMatchObject({ ok: true, ran: moved });
    expect(texts.map((t) => t.slice(0, 7))).toEqual(['BEGIN T', 'EXPLAIN', 'EXPLAIN', 'SELECT ', 'COMMIT']);
  });

  it('runs nothing when PostgreSQL refuses the EXPLAIN, and says why with its hint', async () => {
    const { value, texts } = await sent(db.reader!.pool, () =>
      runChecked(db.reader!.pool, 'SELECT primary_typ FROM crimes', { statementTimeoutMs: 10_000 }),
    );
    expect(value).toEqual({
      ok: false,
      error: expect.stringMatching(/^PostgreSQL rejected the query: column "primary_typ" does not exist \(HINT: Perhaps you meant/),
    });
    expect(texts.some((t) => t.startsWith('SELECT'))).toBe(false);
    expect(texts.at(-1)).toBe('ROLLBACK');
  });

  it('runs nothing when the plan is over the budget', async () => {
    const { value, texts } = await sent(db.reader!.pool, () =>
      runChecked(db.reader!.pool, SQL, { statementTimeoutMs: 10_000, budget: { rows: 10, collected: 1_000_000, heldBytes: 1e9 } }),
    );
    expect(value).toEqual({ ok: false, error: expect.stringMatching(/^The query is too big to run: one step of it would make about/) });
    expect(texts.some((t) => t.startsWith('SELECT'))).toBe(false);
  });

  it('runs the statement as written, in a transaction of its own, when the moved form is refused', async () => {
    const { value } = await sent(db.reader!.pool, () =>
      runChecked(db.reader!.pool, SQL, { statementTimeoutMs: 10_000, moved: 'SELECT nope FROM crimes' }),
    );
    expect(value).toMatchObject({ ok: true, ran: SQL, movedError: expect.stringMatching(/column "nope" does not exist/) });
    expect(value.ok && value.result.rowCount).toBeGreaterThan(1);
  });
});
