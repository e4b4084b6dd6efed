// Opens the project's PostgreSQL: DATABASE_URL when given, otherwise the
// embedded server. Writes (app state, ingest) use `write`; the agents' queries
// use `read`, which is READ_DATABASE_URL (a replica) when set.
import pg from 'pg';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { UserError } from '../core/errors.js';
import { startEmbeddedPostgres } from './embedded.js';
import { migrate } from './migrate.js';

export interface Database {
  /** the write database's URL (secrets included: never print it unredacted) */
  url: string;
  write: pg.Pool;
  read: pg.Pool;
  /** True when this process runs on the embedded server (demo defaults). */
  embedded: boolean;
  close(): Promise<void>;
}

// int8 (counts) as numbers: row counts here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// DATE as the plain 'YYYY-MM-DD' text: a calendar date has no time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

/** A URL safe to print: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** Idle pooled connections closed by a server shutdown (57P01) are expected on stop. */
function logPoolError(logger: Logger, error: Error & { code?: string }): void {
  if (error.code === '57P01') logger.debug(`PostgreSQL closed an idle connection: ${error.message}`);
  else logger.warn(`PostgreSQL pool: ${error.message}`);
}

async function checkReachable(pool: pg.Pool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    throw new UserError(`Cannot connect to PostgreSQL at ${redactUrl(url)}: ${(error as Error).message}`);
  }
}

export async function openDatabase(
  config: Config,
  logger: Logger,
  options: { migrate?: boolean } = {},
): Promise<Database> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres(config.home, config.embeddedPgPort, logger);
  const url = config.databaseUrl ?? embedded!.url;
  const write = new pg.Pool({ connectionString: url, max: 10 });
  write.on('error', (error) => logPoolError(logger, error));
  try {
    await checkReachable(write, url);
    const read = config.readDatabaseUrl ? new pg.Pool({ connectionString: config.readDatabaseUrl, max: 10 }) : write;
    if (read !== write) {
      read.on('error', (error) => logPoolError(logger, error));
      await checkReachable(read, config.readDatabaseUrl!);
    }
    if (options.migrate !== false) {
      const applied = await migrate(write);
      if (applied.length) logger.info(`PostgreSQL: applied migrations ${applied.join(', ')}`);
    }
    return {
      url,
      write,
      read,
      embedded: Boolean(embedded),
      close: async () => {
        if (read !== write) await read.end();
        await write.end();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await write.end().catch(() => undefined);
    await embedded?.stop();
    throw error;
  }
}
