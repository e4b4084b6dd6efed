// Ordered SQL migrations (src/db/migrations/NNN_name.sql), applied inside one
// transaction and recorded in schema_migrations with a checksum. Running twice
// changes nothing; an applied file that was edited afterwards is an error,
// because the database would no longer match what the file says.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { migrationsDir } from '../core/paths.js';
import { UserError } from '../core/errors.js';
import { bestEffort } from '../core/best-effort.js';

export interface Migration {
  version: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(dir, file), 'utf8');
      return {
        version: file.replace(/\.sql$/, ''),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
}

// Any constant works; it keeps two processes starting at once from migrating together.
const MIGRATION_LOCK_KEY = 7_322_001;

/** Applies pending migrations; returns the versions applied now. */
export async function migrate(pool: pg.Pool, migrations = readMigrations()): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    // migrations name their schema where it is not public (app state: datadesk_app);
    // the app's connections look in datadesk_app first, so pin the path here
    await client.query('SET LOCAL search_path = public');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    text PRIMARY KEY,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: string; checksum: string }>('SELECT version, checksum FROM schema_migrations');
    const applied = new Map(rows.map((r) => [r.version, r.checksum]));
    const appliedNow: string[] = [];
    for (const m of migrations) {
      const recorded = applied.get(m.version);
      if (recorded !== undefined) {
        if (recorded !== m.checksum) {
          throw new UserError(
            `Migration ${m.version} was changed after it was applied. Add a new migration instead of editing an applied one.`,
          );
        }
        continue;
      }
      try {
        await client.query(m.sql);
      } catch (error) {
        throw new UserError(`Migration ${m.version} failed: ${(error as Error).message}`);
      }
      await client.query('INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)', [m.version, m.checksum]);
      appliedNow.push(m.version);
    }
    await client.query('COMMIT');
    return appliedNow;
  } catch (error) {
    await bestEffort(client.query('ROLLBACK'), 'ROLLBACK of a failed migration');
    throw error;
  } finally {
    client.release();
  }
}
