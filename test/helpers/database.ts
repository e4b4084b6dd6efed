// A fresh, migrated database per test file on the run's PostgreSQL server,
// dropped afterwards: files run in parallel without seeing each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { APP_SEARCH_PATH } from '../../src/db/database.js'; // also registers the type parsers the app uses
import { ensureReaderRole } from '../../src/db/reader-role.js';
import { createMemoryLogger } from '../../src/core/logger.js';

export interface TestDatabase {
  url: string;
  /** the app's pool (the run's login: a superuser on the test server) */
  pool: pg.Pool;
  /** the database's reader login, as the app creates it (migrated databases only) */
  reader?: { url: string; role: string; pool: pg.Pool };
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const admin = inject('adminDatabaseUrl');
  const name = `dd_test_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = withDatabase(admin, name);
  const pool = new pg.Pool({ connectionString: url, max: 8, options: APP_SEARCH_PATH });
  // dropping the database ends idle connections (57P01); that is the end of the test, not an error in it
  pool.on('error', () => undefined);
  let reader: TestDatabase['reader'];
  if (options.migrate !== false) {
    await migrate(pool);
    const client = await pool.connect();
    try {
      const setup = (await ensureReaderRole(
        client,
        { statementTimeoutMs: 10_000, workMem: '32MB', tempFileLimit: '512MB' },
        createMemoryLogger(),
      ))!;
      const u = new URL(url);
      u.username = setup.role;
      u.password = setup.password;
      reader = { url: u.toString(), role: setup.role, pool: new pg.Pool({ connectionString: u.toString(), max: 3 }) };
      reader.pool.on('error', () => undefined); // as the app pool above
    } finally {
      client.release();
    }
  }
  return {
    url,
    pool,
    reader,
    async drop() {
      await reader?.pool.end();
      await pool.end();
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      if (reader) await c.query(`DROP ROLE IF EXISTS ${reader.role}`);
      await c.end();
    },
  };
}
