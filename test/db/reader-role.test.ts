// The reader login as the app creates it: connected to directly, as a query
// that escaped the guard would be.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

describe('the reader login', () => {
  it('the reader login reads the data tables and nothing else, cannot write, and is no superuser', async () => {
    const client = new pg.Client({ connectionString: db.reader!.url });
    await client.connect();
    try {
      const who = await client.query(
        'SELECT current_user AS u, session_user AS s, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS su',
      );
      expect(who.rows[0]).toEqual({ u: db.reader!.role, s: db.reader!.role, su: false });
      for (const table of [
        'crimes',
        'community_areas',
        'shanghai_stock_exchange',
        'shenzhen_stock_exchange',
        'beijing_stock_exchange',
        'stock_listings',
      ]) {
        await client.query(`SELECT count(*) FROM ${table}`);
      }
      // every session of the reader starts read-only, whatever transaction it opens
      await expect(client.query(`INSERT INTO community_areas VALUES (99, 'Nowhere')`)).rejects.toThrow(/read-only transaction/);
      await client.query('BEGIN READ WRITE');
      await client.query('SAVEPOINT s');
      await expect(client.query(`INSERT INTO community_areas VALUES (99, 'Nowhere')`)).rejects.toThrow(/permission denied/);
      await client.query('ROLLBACK TO SAVEPOINT s');
      await expect(client.query('DELETE FROM crimes')).rejects.toThrow(/permission denied/);
      await client.query('ROLLBACK TO SAVEPOINT s');
      await expect(client.query('CREATE TABLE evil (x int)')).rejects.toThrow(/permission denied/);
      await client.query('ROLLBACK TO SAVEPOINT s');
      await expect(client.query('CREATE TEMP TABLE evil (x int)')).rejects.toThrow(/permission denied/);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  });

  it("every table of the app's own schema is out of the reader's reach", async () => {
    const { rows } = await db.pool.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = 'datadesk_app'
       UNION ALL SELECT 'public.schema_migrations'`,
    );
    expect(rows.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'datadesk_app.audit_log',
        'datadesk_app.keyv_store',
        'datadesk_app.conversation_references',
        'datadesk_app.digest_subscriptions',
        'datadesk_app.digest_runs',
        'datadesk_app.ingest_runs',
        'datadesk_app.ingest_state',
        'datadesk_app.reader_login',
      ]),
    );
    const client = new pg.Client({ connectionString: db.reader!.url });
    await client.connect();
    try {
      for (const { name } of rows) await expect(client.query(`SELECT * FROM ${name}`), name).rejects.toThrow(/permission denied/);
    } finally {
      await client.end();
    }
  });

  it('the reader carries its limits on the role, and may not run the built-ins that take SQL text or change settings', async () => {
    const client = new pg.Client({ connectionString: db.reader!.url });
    await client.connect();
    try {
      const settings = await client.query(`SELECT current_setting('statement_timeout') AS st, current_setting('work_mem') AS wm,
        current_setting('temp_file_limit') AS tf, current_setting('default_transaction_read_only') AS ro`);
      expect(settings.rows[0]).toEqual({ st: '10s', wm: '32MB', tf: '512MB', ro: 'on' });
      for (const sql of [
        `SELECT set_config('role', 'none', false)`,
        `SELECT ts_stat('SELECT 1')`,
        `SELECT query_to_xml('SELECT 1', true, true, '')`,
        `SELECT lo_import('/etc/passwd')`,
        `SELECT pg_read_file('/etc/passwd')`,
        `SELECT database_to_xml(true, true, '')`,
      ]) {
        await expect(client.query(sql), sql).rejects.toThrow(/permission denied/);
      }
    } finally {
      await client.end();
    }
  });
});
