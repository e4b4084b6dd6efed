import { existsSync, rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersFromData, checkSql } from '../../src/db/sql-guard.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { classOf, loadCorpus } from '../security/corpus.js';

const { entries: CORPUS, pwnedPath } = loadCorpus();
const REFUSED = CORPUS.filter((h) => h.reason);

const BENIGN = [
  'SELECT count(*) FROM crimes',
  "SELECT primary_type, count(*) AS n FROM crimes WHERE date >= '2024-01-01' GROUP BY 1 ORDER BY n DESC",
  'SELECT a.name, count(*) FROM crimes c JOIN community_areas a USING (community_area) GROUP BY a.name',
  'WITH y AS (SELECT year, count(*) AS n FROM crimes GROUP BY year) SELECT year, n, n - lag(n) OVER (ORDER BY year) AS change FROM y',
  "SELECT date_trunc('month', date) AS m, count(*) FILTER (WHERE arrest) FROM crimes GROUP BY 1",
  'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n) FROM (SELECT block, count(*) AS n FROM crimes GROUP BY block) s',
  'SELECT extract(hour FROM date) AS h, count(*) FROM crimes WHERE extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6 GROUP BY 1',
  'SELECT * FROM crimes WHERE id IN (SELECT id FROM crimes WHERE domestic) LIMIT 5',
  "SELECT to_char(date, 'Dy') AS weekday, count(*) FROM crimes GROUP BY 1",
  'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r',
  'SELECT g AS year FROM generate_series(2001, 2025) g',
  "SELECT stock_code, closing_price FROM shanghai_stock_exchange WHERE trade_date = '2024-01-02' UNION ALL SELECT stock_code, closing_price FROM shenzhen_stock_exchange WHERE trade_date = '2024-01-02'",
  'SELECT c.* FROM public.crimes c ORDER BY c.date DESC LIMIT 10',
  "SELECT CASE WHEN arrest THEN 'yes' ELSE 'no' END, count(*) FROM crimes GROUP BY 1",
  // set operations: each branch is a SELECT with its own WITH, and the left one names the columns
  '(WITH y AS (SELECT year FROM crimes) SELECT year FROM y) UNION SELECT 2001',
  'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT r.n + 1 FROM r WHERE r.n < 5) SELECT r.n FROM r',
  'SELECT s.n FROM (SELECT count(*) AS n FROM crimes UNION ALL SELECT 0) s',
];

describe('SQL guard (libpg-query)', () => {
  it(`refuses all ${REFUSED.length} hostile statements, each for the right reason`, async () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(400);
    const wrong: string[] = [];
    for (const h of REFUSED) {
      const verdict = await checkSql(h.sql);
      if (verdict.ok || verdict.reason !== h.reason)
        wrong.push(`${h.sql} -> ${verdict.ok ? 'accepted' : verdict.reason} (expected ${h.reason})`);
    }
    expect(wrong).toEqual([]);
  });

  it('accepts the resource bombs of the corpus: the limits stop those (test/security/hostile-model.test.ts)', async () => {
    const bombs = CORPUS.filter((h) => h.limit);
    expect(bombs.length).toBeGreaterThanOrEqual(10);
    for (const h of bombs) expect(await checkSql(h.sql), h.sql).toMatchObject({ ok: true });
  });

  it('accepts ordinary analytical SELECTs and lists the tables they read', async () => {
    for (const sql of BENIGN) expect(await checkSql(sql), sql).toMatchObject({ ok: true });
    expect(await checkSql(BENIGN[2])).toEqual({ ok: true, tables: ['community_areas', 'crimes'], statement: BENIGN[2].trim() });
  });

  it('explains each refusal in a sentence', async () => {
    expect(await checkSql('WITH x AS (DELETE FROM crimes RETURNING *) SELECT * FROM x')).toEqual({
      ok: false,
      reason: 'data_modifying',
      message: 'The query contains DELETE: only reading is allowed, also inside WITH.',
    });
    expect(await checkSql('SELECT pg_sleep(100)')).toMatchObject({
      message:
        'The query calls pg_sleep(), which is not on the list of allowed functions (aggregates, window, math, string, date and time functions).',
    });
    expect(await checkSql('SELECT * FROM users')).toMatchObject({
      message: expect.stringMatching(/^The query reads users, which is not available: the tables are crimes, community_areas/),
    });
    expect(await checkSql('SELEC 1')).toMatchObject({
      reason: 'parse_error',
      message: 'PostgreSQL cannot parse the query: syntax error at or near "SELEC" (at character 1).',
    });
  });
});

describe('the reader login alone (the guard bypassed)', () => {
  let db: TestDatabase;
  let reader: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`INSERT INTO crimes (id, date, primary_type) VALUES (1, '2024-01-01', 'THEFT'), (2, '2024-01-02', 'BATTERY')`);
    // the login model-written SQL runs as, connected to as a query that escaped the guard would be
    reader = new pg.Client({ connectionString: db.reader!.url });
    await reader.connect();
  });
  afterAll(async () => {
    await reader?.end();
    await db?.drop();
    rmSync(pwnedPath, { force: true });
  });

  /** What a write would change: tables, their rows, privileges, roles, temp tables, large objects. */
  const fingerprint = async (q: (sql: string) => Promise<{ rows: unknown[] }>) =>
    JSON.stringify(
      await Promise.all([
        q(`SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('public', 'datadesk_app') ORDER BY 1, 2`),
        q(
          `SELECT (SELECT count(*) FROM crimes) AS crimes, (SELECT count(*) FROM community_areas) AS areas, (SELECT sum(id) FROM crimes) AS ids, (SELECT count(*) FILTER (WHERE arrest) FROM crimes) AS arrests`,
        ),
        q(
          `SELECT grantee, table_name, privilege_type FROM information_schema.table_privileges WHERE table_schema IN ('public', 'datadesk_app') ORDER BY 1, 2, 3`,
        ),
        q(
          `SELECT rolname, rolsuper, rolcreaterole, rolinherit, rolconfig FROM pg_roles WHERE rolname = current_user OR rolsuper ORDER BY 1`,
        ),
        q(`SELECT count(*) FROM pg_class WHERE relpersistence = 't'`),
        q(`SELECT obj_description('crimes'::regclass)`),
        q(`SELECT count(*) FROM pg_largeobject_metadata`),
      ]),
    );

  it('every write of the corpus errors or changes nothing, and writes no file', async () => {
    const writes = CORPUS.filter((h) => h.writes);
    expect(writes.length).toBeGreaterThanOrEqual(80);
    const who = await reader.query('SELECT current_user AS u, session_user AS s');
    expect(who.rows[0]).toEqual({ u: db.reader!.role, s: db.reader!.role });
    const before = await fingerprint((sql) => db.pool.query(sql));
    const changed: string[] = [];
    for (const h of writes) {
      await reader.query('BEGIN');
      let refused = false;
      try {
        await reader.query(h.sql);
      } catch {
        refused = true;
      }
      // seen from inside the reader's own transaction, before it ends
      if (!refused && (await fingerprint((sql) => reader.query(sql))) !== before) changed.push(h.sql);
      await reader.query('ROLLBACK');
    }
    expect(changed).toEqual([]);
    expect(await fingerprint((sql) => db.pool.query(sql))).toBe(before);
    expect(existsSync(pwnedPath)).toBe(false);
  });

  it('refuses outright what takes SQL text, changes settings, touches files or large objects, or reads app state', async () => {
    const escapes = CORPUS.filter(
      (h) =>
        ['sql_text_function', 'set_config', 'large_object', 'server_file', 'app_table'].includes(classOf(h)) &&
        h.reason !== 'system_catalog',
    );
    expect(escapes.length).toBeGreaterThanOrEqual(80);
    const ran: string[] = [];
    for (const h of escapes) {
      await reader.query('BEGIN');
      try {
        await reader.query(h.sql);
        ran.push(h.sql);
      } catch (error) {
        expect((error as Error).message, h.sql).toMatch(/permission denied|does not exist|cross-database references are not implemented/);
      }
      await reader.query('ROLLBACK');
    }
    expect(ran).toEqual([]);
    expect(existsSync(pwnedPath)).toBe(false);
  });

  // A query that got past the guard could otherwise take pg_advisory_lock(7322002), the app's start-up lock,
  // on a pooled reader connection and keep it, so that the next process to start would wait forever.
  it('may not hold a session advisory lock (the app serializes its start-up with one)', async () => {
    await expect(reader.query('SELECT pg_advisory_lock(7322002)')).rejects.toThrow(/permission denied/);
  });
  it('tells SQL that answers from the data from a constant dressed as a query (a verified pair must be the first)', async () => {
    for (const sql of [
      'SELECT count(*) FROM crimes',
      'SELECT year, count(*) FROM crimes GROUP BY year',
      'SELECT * FROM crimes LIMIT 5',
      'SELECT max(c.date) FROM crimes c',
      "SELECT 'x' AS a, block FROM crimes",
      'SELECT 1 FROM crimes UNION SELECT count(*) FROM crimes',
    ]) {
      expect(await answersFromData(sql), sql).toBe(true);
    }
    for (const sql of [
      'SELECT 41',
      'SELECT 41 AS incidents FROM crimes LIMIT 1',
      'SELECT 41 + 0 AS incidents FROM crimes',
      'SELECT (SELECT 41) AS n FROM crimes',
      "SELECT 'two thousand' FROM crimes",
    ]) {
      expect(await answersFromData(sql), sql).toBe(false);
    }
  });
});
