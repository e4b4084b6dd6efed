// Opens the project's PostgreSQL: DATABASE_URL when given, otherwise the
// embedded server. Two kinds of connection, never mixed:
// - `write` (and `read`, the same pool): the app's own login, for app state,
//   ingest and the SQL our own code writes (verified queries, backtest data);
// - `reader`: a small pool that logs in as the read-only reader role, the only
//   place model-written SQL runs (src/db/reader-role.ts).
import pg from 'pg';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { UserError } from '../core/errors.js';
import { startEmbeddedPostgres } from './embedded.js';
import { migrate } from './migrate.js';
import { ensureReaderRole, loginRights, readerProblems } from './reader-role.js';
import { bestEffort } from '../core/best-effort.js';

export interface Database {
  /** the write database's URL (secrets included: never print it unredacted) */
  url: string;
  write: pg.Pool;
  /** trusted reads (our own SQL): the app's pool */
  read: pg.Pool;
  /** the reader login's pool for model-written SQL; undefined when none could be had (see readerProblem) */
  reader?: pg.Pool;
  /** why there is no reader pool, in a sentence for the user and the log */
  readerProblem?: string;
  /** True when this process runs on the embedded server (demo defaults). */
  embedded: boolean;
  /** the embedded server's superuser login (the benchmarks make their own database with it) */
  adminUrl?: string;
  close(): Promise<void>;
}

// int8 (counts) as numbers: row counts here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// DATE as the plain 'YYYY-MM-DD' text: a calendar date has no time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

/** The app's own tables live in datadesk_app (migration 011); its connections look there first. */
export const APP_SEARCH_PATH = '-c search_path=datadesk_app,public';

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
function logPoolError(logger: Logger, name: string, error: Error & { code?: string }): void {
  if (error.code === '57P01') logger.debug(`PostgreSQL closed an idle ${name} connection: ${error.message}`);
  else logger.warn(`PostgreSQL ${name} pool: ${error.message}`);
}

/** A pool whose errors are logged, never thrown at the process: a database that goes away must not stop the bot. */
function createPool(config: pg.PoolConfig, name: string, logger: Logger): pg.Pool {
  const pool = new pg.Pool({ connectionTimeoutMillis: 5_000, ...config });
  pool.on('error', (error) => logPoolError(logger, name, error));
  // a checked-out client whose connection dies emits on the client, not the pool
  pool.on('connect', (client) => client.on('error', (error) => logPoolError(logger, name, error)));
  return pool;
}

async function checkReachable(pool: pg.Pool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    throw new UserError(`Cannot connect to PostgreSQL at ${redactUrl(url)}: ${(error as Error).message}`);
  }
}

export interface OpenOptions {
  migrate?: boolean;
  /**
   * false: no reader pool, for a command that runs no model-written SQL (a backtest from the terminal). Setting up
   * the reader login (its role, grants and limits, then a connection to check it) is most of an open's time.
   */
  reader?: boolean;
  /** refuse a superuser login unless ALLOW_SUPERUSER: the bot itself (serve, chat) */
  refuseSuperuser?: boolean;
}

export async function openDatabase(config: Config, logger: Logger, options: OpenOptions = {}): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.home, config.embeddedPgPort, logger);
  const url = config.databaseUrl ?? embedded!.url;
  const write = createPool({ connectionString: url, max: 10, options: APP_SEARCH_PATH }, 'app', logger);
  let reader: pg.Pool | undefined;
  try {
    await checkReachable(write, url);
    const rights = await loginRights(write);
    if (rights.superuser && options.refuseSuperuser && !config.allowSuperuser) {
      throw new UserError(
        `DATABASE_URL logs in as ${rights.user}, a superuser. The bot never runs as a superuser: a superuser can read and write ` +
          `anything on the server, so one escaped query would be enough. Create a login for it (CREATE ROLE datadesk LOGIN CREATEROLE ` +
          `PASSWORD '…'; CREATE DATABASE datadesk OWNER datadesk) and use that, or set DATADESK_ALLOW_SUPERUSER=true to run anyway.`,
      );
    }
    if (rights.superuser && options.refuseSuperuser)
      logger.warn(
        `PostgreSQL: the app logs in as the superuser ${rights.user} (DATADESK_ALLOW_SUPERUSER); model-written SQL still runs as the reader login`,
      );
    if (options.migrate !== false) {
      const applied = await migrate(write);
      if (applied.length) logger.info(`PostgreSQL: applied migrations ${applied.join(', ')}`);
    }
    const access =
      options.migrate === false
        ? { problem: 'the reader login is set up after the migrations, which this command does not run' }
        : options.reader === false
          ? { problem: 'this command runs no model-written SQL, so it does not set up the reader login' }
          : await openReader(config, logger, url, embedded?.adminUrl, rights.user);
    reader = access.pool;
    if (access.problem && options.migrate !== false && options.reader !== false)
      logger.warn(`PostgreSQL: model-written SQL is off: ${access.problem}`);
    return {
      url,
      write,
      read: write,
      reader,
      readerProblem: access.problem,
      embedded: Boolean(embedded),
      ...(embedded ? { adminUrl: embedded.adminUrl } : {}),
      close: async () => {
        await reader?.end();
        await write.end();
        await embedded?.stop();
      },
    };
  } catch (error) {
    if (reader) await bestEffort(reader.end(), 'closing the reader pool after a failed start', logger);
    await bestEffort(write.end(), 'closing the app pool after a failed start', logger);
    await embedded?.stop();
    throw error;
  }
}

/**
 * The reader pool: READ_DATABASE_URL when given (checked to be a proper
 * reader), else a login the app creates when its login may create roles (on
 * the embedded server, the superuser creates it with every limit), else none.
 */
async function openReader(
  config: Config,
  logger: Logger,
  appUrl: string,
  adminUrl: string | undefined,
  appUser: string,
): Promise<{ pool?: pg.Pool; problem?: string }> {
  const poolConfig = { max: config.reader.poolSize, application_name: 'datadesk-reader' };
  let readerUrl = config.readDatabaseUrl;
  if (!readerUrl) {
    const setupClient = new pg.Client({ connectionString: adminUrl ?? appUrl, options: APP_SEARCH_PATH });
    await setupClient.connect();
    try {
      const limits = {
        statementTimeoutMs: config.statementTimeoutMs,
        workMem: config.reader.workMem,
        tempFileLimit: config.reader.tempFileLimit,
      };
      const setup = await ensureReaderRole(setupClient, limits, logger, appUser);
      if (!setup) {
        return {
          problem:
            `the app's login ${appUser} may not create roles, and READ_DATABASE_URL is not set. ` +
            'Give READ_DATABASE_URL a read-only login (SELECT on the data tables only), or let the app create one (ALTER ROLE … CREATEROLE). Verified questions still work.',
        };
      }
      if (setup.skipped.length) {
        logger.warn(
          `PostgreSQL: the reader login ${setup.role} works, but these need a superuser and were not done: ${setup.skipped.join('; ')}. ` +
            'Until they are, the SQL guard is the only wall for those functions and temp files. Run once: datadesk db harden --admin-url postgres://SUPERUSER@HOST/DATABASE',
        );
      }
      const u = new URL(appUrl);
      u.username = setup.role;
      u.password = setup.password;
      readerUrl = u.toString();
    } finally {
      await bestEffort(setupClient.end(), 'closing the reader set-up connection', logger);
    }
  }
  const pool = createPool({ connectionString: readerUrl, ...poolConfig }, 'reader', logger);
  let problem: string | undefined;
  try {
    const client = await pool.connect();
    try {
      problem = await readerProblems(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await bestEffort(pool.end(), 'closing the reader pool that could not connect', logger);
    return { problem: `the reader login cannot connect (${(error as Error).message}).` };
  }
  if (!problem) return { pool };
  await pool.end();
  return { problem: `${problem}. Use a login with SELECT on the data tables only.` };
}
