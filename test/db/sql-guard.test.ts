import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSql, type GuardReason } from '../../src/db/sql-guard.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

interface Hostile { sql: string; reason: GuardReason; writes: boolean }
const CORPUS = JSON.parse(readFileSync('test/fixtures/hostile-sql.json', 'utf8')) as Hostile[];

const BENIGN = [
  'SELECT count(*) FROM crimes',
  "SELECT primary_type, count(*) AS n FROM crimes WHERE date >= '2024-01-01' GROUP BY 1 ORDER BY n DESC",
  'SELECT a.name, count(*) FROM crimes c JOIN community_areas a USING (community_area) GROUP BY a.name',
  "WITH y AS (SELECT year, count(*) AS n FROM crimes GROUP BY year) SELECT year, n, n - lag(n) OVER (ORDER BY year) AS change FROM y",
  "SELECT date_trunc('month', date) AS m, count(*) FILTER (WHERE arrest) FROM crimes GROUP BY 1",
  'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n) FROM (SELECT block, count(*) AS n FROM crimes GROUP BY block) s',
  "SELECT extract(hour FROM date) AS h, count(*) FROM crimes WHERE extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6 GROUP BY 1",
  'SELECT * FROM crimes WHERE id IN (SELECT id FROM crimes WHERE domestic) LIMIT 5',
  "SELECT to_char(date, 'Dy') AS weekday, count(*) FROM crimes GROUP BY 1",
  'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r',
  'SELECT g AS year FROM generate_series(2001, 2025) g',
  "SELECT stock_code, closing_price FROM shanghai_stock_exchange WHERE trade_date = '2024-01-02' UNION ALL SELECT stock_code, closing_price FROM shenzhen_stock_exchange WHERE trade_date = '2024-01-02'",
  'SELECT c.* FROM public.crimes c ORDER BY c.date DESC LIMIT 10',
  'SELECT CASE WHEN arrest THEN \'yes\' ELSE \'no\' END, count(*) FROM crimes GROUP BY 1',
];

describe('SQL guard (libpg-query)', () => {
  it(`refuses all ${CORPUS.length} hostile statements, each for the right reason`, async () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(100);
    const wrong: string[] = [];
    for (const h of CORPUS) {
      const verdict = await checkSql(h.sql);
      if (verdict.ok || verdict.reason !== h.reason) wrong.push(`${h.sql} -> ${verdict.ok ? 'accepted' : verdict.reason} (expected ${h.reason})`);
    }
    expect(wrong).toEqual([]);
  });

  it('accepts ordinary analytical SELECTs and lists the tables they read', async () => {
    for (const sql of BENIGN) expect(await checkSql(sql), sql).toMatchObject({ ok: true });
    expect(await checkSql(BENIGN[2])).toEqual({ ok: true, tables: ['community_areas', 'crimes'] });
  });

  it('explains each refusal in a sentence', async () => {
    expect(await checkSql('WITH x AS (DELETE FROM crimes RETURNING *) SELECT * FROM x')).toEqual({
      ok: false, reason: 'data_modifying', message: 'The query contains DELETE: only reading is allowed, also inside WITH.',
    });
    expect(await checkSql('SELECT pg_sleep(100)')).toMatchObject({ message: 'The query calls pg_sleep(), which is not on the list of allowed functions (aggregates, window, math, string, date and time functions).' });
    expect(await checkSql('SELECT * FROM users')).toMatchObject({ message: expect.stringMatching(/^The query reads users, which is not available: the tables are crimes, community_areas/) });
    expect(await checkSql('SELEC 1')).toMatchObject({ reason: 'parse_error', message: 'PostgreSQL cannot parse the query: syntax error at or near "SELEC" (at character 1).' });
  });
});

describe('the read-only role alone', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`INSERT INTO crimes (id, date, primary_type) VALUES (1, '2024-01-01', 'THEFT'), (2, '2024-01-02', 'BATTERY')`);
  });
  afterAll(async () => db?.drop());

  /** What a write would change: tables, their rows, privileges, roles, temp tables. */
  const fingerprint = async (q: (sql: string) => Promise<{ rows: unknown[] }>) =>
    JSON.stringify(await Promise.all([
      q(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`),
      q(`SELECT (SELECT count(*) FROM crimes) AS crimes, (SELECT count(*) FROM community_areas) AS areas, (SELECT sum(id) FROM crimes) AS ids, (SELECT count(*) FILTER (WHERE arrest) FROM crimes) AS arrests`),
      q(`SELECT grantee, table_name, privilege_type FROM information_schema.table_privileges WHERE table_schema = 'public' ORDER BY 1, 2, 3`),
      q(`SELECT rolname, rolsuper FROM pg_roles ORDER BY 1`),
      q(`SELECT count(*) FROM pg_class WHERE relpersistence = 't'`),
      q(`SELECT obj_description('crimes'::regclass)`),
    ]));

  it('refuses every write of the corpus: it errors or changes nothing', async () => {
    const writes = CORPUS.filter((h) => h.writes);
    expect(writes.length).toBeGreaterThanOrEqual(50);
    const before = await fingerprint((sql) => db.pool.query(sql));
    const client = await db.pool.connect();
    const changed: string[] = [];
    try {
      for (const h of writes) {
        await client.query('BEGIN');
        await client.query('SET LOCAL ROLE datadesk_reader');
        const who = await client.query('SELECT current_user');
        expect(who.rows[0].current_user).toBe('datadesk_reader');
        let refused = false;
        try {
          await client.query(h.sql);
        } catch {
          refused = true;
        }
        if (!refused) {
          await client.query('RESET ROLE');
          if ((await fingerprint((sql) => client.query(sql))) !== before) changed.push(h.sql);
        }
        await client.query('ROLLBACK');
      }
    } finally {
      client.release();
    }
    expect(changed).toEqual([]);
    expect(await fingerprint((sql) => db.pool.query(sql))).toBe(before);
  });
});
