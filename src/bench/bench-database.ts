// The benchmarks' own database, next to the app's on the same server, so that
// an 8.5M-row run never touches the data the bot serves.
import pg from 'pg';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { APP_SEARCH_PATH, openDatabase, type Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';

/** BENCH_DATABASE names another (an 8.5M-row load kept apart from the default one) */
function benchDatabaseName(): string {
  const name = process.env.BENCH_DATABASE ?? 'datadesk_bench';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`BENCH_DATABASE must be a plain database name (a-z, 0-9, _), not "${name}"`);
  return name;
}

export interface BenchDatabase {
  pool: pg.Pool;
  /** its URL on the app's server */
  url: string;
  close(): Promise<void>;
}

export async function openBenchDatabase(config: Config, logger: Logger, fresh: boolean): Promise<BenchDatabase> {
  const BENCH_DATABASE = benchDatabaseName();
  const app: Database = await openDatabase(config, logger, { migrate: false });
  // on the embedded server the app's login may not create databases: its superuser makes the bench's
  const serverUrl = new URL(config.databaseUrl ?? app.adminUrl ?? (app.write.options.connectionString as string));
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_DATABASE])).rowCount;
  if (fresh && exists) await admin.query(`DROP DATABASE ${BENCH_DATABASE} WITH (FORCE)`);
  if (fresh || !exists) await admin.query(`CREATE DATABASE ${BENCH_DATABASE}`);
  await admin.end();
  serverUrl.pathname = `/${BENCH_DATABASE}`;
  const pool = new pg.Pool({ connectionString: serverUrl.toString(), max: 4, options: APP_SEARCH_PATH });
  await migrate(pool);
  return {
    pool,
    url: serverUrl.toString(),
    close: async () => {
      await pool.end();
      await app.close();
    },
  };
}
