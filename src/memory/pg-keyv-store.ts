// A keyv store on the app's own PostgreSQL pool (datadesk_app.keyv_store,
// migration 011), instead of @keyv/postgres: that package keeps a module-wide
// pool with no 'error' listener, so a database restart killed the process, and
// its table lived in `public`. Errors here are thrown to the caller (keyv is
// built with throwOnErrors), so a database that is down is reported as such
// rather than read as an empty thread.
import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import type pg from 'pg';

export class PgKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  opts: { dialect: string; table: string } = { dialect: 'postgres', table: 'datadesk_app.keyv_store' };
  namespace?: string;

  constructor(private readonly pool: pg.Pool) {
    super();
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const { rows } = await this.pool.query<{ value: string }>('SELECT value FROM datadesk_app.keyv_store WHERE key = $1', [key]);
    return rows[0]?.value as StoredData<Value> | undefined;
  }

  async set(key: string, value: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO datadesk_app.keyv_store (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }

  async delete(key: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM datadesk_app.keyv_store WHERE key = $1', [key])).rowCount ?? 0) > 0;
  }

  async clear(): Promise<void> {
    const prefix = this.namespace ? `${this.namespace}:` : '';
    await this.pool.query("DELETE FROM datadesk_app.keyv_store WHERE key LIKE $1 || '%'", [prefix.replace(/[\\%_]/g, '\\$&')]);
  }

  async disconnect(): Promise<void> {
    // the pool belongs to the app and is closed with it
  }
}
