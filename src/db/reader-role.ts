// The reader login: the only role model-written SQL ever runs as. It logs in
// itself (never `SET ROLE` from the owner: PostgreSQL checks a role change
// against the login, so `set_config('role', 'none', …)` inside a query would
// climb back to the owner). It is NOSUPERUSER, NOINHERIT, a member of nothing,
// may SELECT the data tables and nothing else, and carries its limits on the
// role itself, so a session cannot start without them.
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../core/logger.js';
import { sqlAllowList } from './sql-allowlist.js';
import { bestEffort } from '../core/best-effort.js';

/** Limits set on the reader role (ALTER ROLE … SET): every session of it starts with them. */
export interface ReaderLimits {
  statementTimeoutMs: number;
  workMem: string;
  tempFileLimit: string;
}

/** One reader per database: roles are cluster-wide, and each database keeps its own password. */
export function readerRoleName(database: string): string {
  const name = `datadesk_reader_${database}`;
  return /^[a-z0-9_]{1,63}$/.test(name) ? name : `datadesk_reader_${createHash('sha256').update(database).digest('hex').slice(0, 16)}`;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * Built-ins that run SQL text, read or list files, change settings or write
 * large objects: EXECUTE is revoked from PUBLIC in this database (a second
 * wall behind the guard's allow-list) and granted back to the app's owner.
 * Only a superuser may do this; otherwise the caller is told.
 */
const DANGEROUS_FUNCTIONS = `
  SELECT p.oid::regprocedure AS fn FROM pg_proc p
  WHERE p.pronamespace = 'pg_catalog'::regnamespace
    AND (p.proname IN ('set_config', 'ts_stat', 'ts_rewrite', 'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema',
                       'cursor_to_xml', 'cursor_to_xmlschema')
         OR p.proname ~ '_to_xml' OR p.proname LIKE 'lo\\_%' OR p.proname LIKE 'pg\\_read\\_%' OR p.proname LIKE 'pg\\_ls\\_%'
         OR p.proname LIKE 'pg\\_stat\\_file%' OR p.proname LIKE 'pg\\_file\\_%'
         -- session advisory locks: an escaped query could hold the app's own locks (start-up, digest leader)
         OR p.proname LIKE 'pg\\_advisory%' OR p.proname LIKE 'pg\\_try\\_advisory%')`;

export interface ReaderSetup {
  role: string;
  password: string;
  /** steps that need a superuser and were not done, in words */
  skipped: string[];
}

interface LoginRights {
  user: string;
  superuser: boolean;
  createRole: boolean;
  createDb: boolean;
  database: string;
  serverVersion: number;
}

export async function loginRights(client: pg.Pool | pg.ClientBase): Promise<LoginRights> {
  const { rows } = await client.query<{
    user: string;
    superuser: boolean;
    createrole: boolean;
    createdb: boolean;
    database: string;
    version: string;
  }>(
    `SELECT current_user AS user, rolsuper AS superuser, rolcreaterole AS createrole, rolcreatedb AS createdb, current_database() AS database,
            current_setting('server_version_num') AS version
     FROM pg_roles WHERE rolname = current_user`,
  );
  const r = rows[0];
  return {
    user: r.user,
    superuser: r.superuser,
    createRole: r.createrole,
    createDb: r.createdb,
    database: r.database,
    serverVersion: Number(r.version),
  };
}

/**
 * Creates (or repairs) this database's reader login, when the app's login may
 * create roles. Returns undefined when it may not: the caller then needs
 * READ_DATABASE_URL. Runs under the migration lock so that two processes
 * starting together agree on one password.
 */
export async function ensureReaderRole(
  client: pg.ClientBase,
  limits: ReaderLimits,
  logger: Logger,
  /** who keeps EXECUTE on the revoked built-ins: the app's owner (default: this login) */
  appOwner?: string,
): Promise<ReaderSetup | undefined> {
  const rights = await loginRights(client);
  if (!rights.superuser && !rights.createRole) return undefined;
  const role = readerRoleName(rights.database);
  const skipped: string[] = [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(7322002)');
    const stored = await client.query<{ password: string }>('SELECT password FROM datadesk_app.reader_login WHERE role_name = $1', [role]);
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
    const password = stored.rows[0]?.password ?? randomBytes(24).toString('base64url');
    // only a superuser may even name the superuser, replication and bypassrls attributes; a role it did not give them lacks them
    // PostgreSQL 17 lets ALTER ROLE name NOCREATEDB only to a login that has CREATEDB itself; a role created
    // NOCREATEDB by such a login cannot have gained it, so the attribute is left out of the ALTER then
    const createDb = !exists || rights.superuser || rights.createDb ? ' NOCREATEDB' : '';
    const attributes = `LOGIN NOINHERIT${createDb} NOCREATEROLE CONNECTION LIMIT 50${rights.superuser ? ' NOSUPERUSER NOREPLICATION NOBYPASSRLS' : ''}`;
    await client.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${ident(role)} WITH ${attributes} PASSWORD ${literal(password)}`);
    if (!stored.rowCount)
      await client.query('INSERT INTO datadesk_app.reader_login (role_name, password) VALUES ($1, $2)', [role, password]);

    // a member of nothing: no inherited or SET-able rights from any other role
    const memberships = await client.query<{ name: string }>(
      'SELECT r.rolname AS name FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = $1)',
      [role],
    );
    for (const m of memberships.rows) await client.query(`REVOKE ${ident(m.name)} FROM ${ident(role)}`);

    const settings: [string, string][] = [
      ['statement_timeout', String(limits.statementTimeoutMs)],
      ['idle_in_transaction_session_timeout', '30000'],
      ['work_mem', limits.workMem],
      ['max_parallel_workers_per_gather', '2'],
      ['default_transaction_read_only', 'on'],
      ['search_path', 'public'],
      // a backend whose client went away (the app's watchdog closed it) stops within a second
      ['client_connection_check_interval', '1000'],
    ].filter(([name]) => name !== 'client_connection_check_interval' || rights.serverVersion >= 140000) as [string, string][];
    if (rights.superuser) settings.push(['temp_file_limit', limits.tempFileLimit]);
    for (const [name, value] of settings) await client.query(`ALTER ROLE ${ident(role)} SET ${name} = ${literal(value)}`);

    await client.query(`GRANT CONNECT ON DATABASE ${ident(rights.database)} TO ${ident(role)}`);
    await client.query(`GRANT USAGE ON SCHEMA public TO ${ident(role)}`);
    await client.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${ident(role)}`);
    const tables = [...sqlAllowList().relations.keys()];
    const present = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1)`,
      [tables],
    );
    if (present.rowCount) await client.query(`GRANT SELECT ON ${present.rows.map((r) => ident(r.name)).join(', ')} TO ${ident(role)}`);
    await client.query(`REVOKE ALL ON SCHEMA datadesk_app FROM ${ident(role)}`);

    if (rights.superuser) await revokeDangerousFunctions(client, appOwner ?? rights.user);
    await client.query('COMMIT');
    // what only a superuser can add, and was not added yet (by this run, an earlier one, or `datadesk db harden`)
    skipped.push(...(await missingWalls(client, role, limits)));
    if (!exists) logger.info(`PostgreSQL: created the reader login ${role} for model-written SQL`);
    return { role, password, skipped };
  } catch (error) {
    await bestEffort(client.query('ROLLBACK'), 'ROLLBACK of the reader login set-up', logger);
    throw error;
  }
}

/**
 * The walls a superuser must add that are not there: temp_file_limit on the reader role, and EXECUTE on
 * the dangerous built-ins still granted to PUBLIC. Read from the catalogs, so it is right whoever added them.
 */
export async function missingWalls(client: pg.ClientBase, role: string, limits: Pick<ReaderLimits, 'tempFileLimit'>): Promise<string[]> {
  const { rows } = await client.query<{ temp: boolean; public_fns: number }>(
    `SELECT EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
                    WHERE r.rolname = $1 AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE c LIKE 'temp_file_limit=%')) AS temp,
            (SELECT count(*)::int FROM (${DANGEROUS_FUNCTIONS}) d JOIN pg_proc p ON p.oid = d.fn::oid
             WHERE p.proacl IS NULL OR EXISTS (SELECT 1 FROM aclexplode(p.proacl) a WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE')) AS public_fns`,
    [role],
  );
  const missing: string[] = [];
  if (!rows[0].temp) missing.push(`temp_file_limit (${limits.tempFileLimit}) on ${role}`);
  if (rows[0].public_fns > 0)
    missing.push(
      `REVOKE EXECUTE from PUBLIC on ${rows[0].public_fns} built-ins (set_config, ts_stat, query_to_xml*, lo_*, pg_read_*, advisory locks …)`,
    );
  return missing;
}

/** The second wall: dangerous built-ins are not executable by PUBLIC here (the app's owner keeps them). */
export async function revokeDangerousFunctions(client: pg.ClientBase, owner: string): Promise<number> {
  const { rows } = await client.query<{ fn: string }>(DANGEROUS_FUNCTIONS);
  for (const { fn } of rows) {
    await client.query(`REVOKE EXECUTE ON FUNCTION ${fn} FROM PUBLIC`);
    await client.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${ident(owner)}`);
  }
  return rows.length;
}

/** What is wrong with a login meant for model-written SQL, or undefined when it is a proper reader. */
export async function readerProblems(client: pg.ClientBase): Promise<string | undefined> {
  const { rows } = await client
    .query<{
      user: string;
      session: string;
      superuser: boolean;
      createrole: boolean;
      bypassrls: boolean;
      members: number;
      app: boolean;
      writes: boolean;
    }>(
      `SELECT current_user AS user, session_user AS session, r.rolsuper AS superuser, r.rolcreaterole AS createrole, r.rolbypassrls AS bypassrls,
            (SELECT count(*) FROM pg_auth_members m WHERE m.member = r.oid)::int AS members,
            coalesce(has_schema_privilege(current_user, 'datadesk_app', 'USAGE'), false) AS app,
            EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'm')
                    AND (has_table_privilege(c.oid, 'INSERT') OR has_table_privilege(c.oid, 'UPDATE') OR has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE'))) AS writes
     FROM pg_roles r WHERE r.rolname = current_user`,
    )
    .catch(async (error) => {
      // has_schema_privilege raises when the schema does not exist (a replica of another database)
      if ((error as { code?: string }).code !== '3F000') throw error;
      return { rows: [] };
    });
  const r = rows[0];
  if (!r) return undefined;
  const problems: string[] = [];
  if (r.superuser) problems.push('it is a superuser');
  if (r.createrole) problems.push('it may create roles');
  if (r.bypassrls) problems.push('it bypasses row-level security');
  if (r.members > 0) problems.push(`it is a member of ${r.members} other role${r.members === 1 ? '' : 's'}`);
  if (r.app) problems.push("it can use the app's own schema datadesk_app");
  if (r.writes) problems.push('it may write to tables in public');
  return problems.length ? `the login ${r.user} is not a read-only login: ${problems.join(', ')}` : undefined;
}
