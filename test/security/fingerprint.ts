// What an attack that got through would have changed, read with the app's
// (superuser) pool: the data tables' rows, the app's own tables, roles and
// their attributes and memberships, privileges on tables, schemas, functions
// and the database, per-role settings, objects in the user schemas (and
// temporary tables of the reader), extensions and large objects. Two fingerprints are equal when nothing
// changed.
import type pg from 'pg';

const DATA_TABLES = [
  'crimes',
  'community_areas',
  'shanghai_stock_exchange',
  'shenzhen_stock_exchange',
  'beijing_stock_exchange',
  'stock_listings',
];
const APP_TABLES = [
  'audit_log',
  'keyv_store',
  'conversation_references',
  'digest_subscriptions',
  'digest_runs',
  'ingest_runs',
  'ingest_state',
  'reader_login',
];

export interface Fingerprint {
  data: unknown;
  app: Record<string, number>;
  roles: unknown;
  privileges: unknown;
  objects: unknown;
  largeObjects: number;
}

/**
 * Roles are cluster-wide and other test files create and drop their own
 * readers meanwhile: only this database's reader and the roles that are not
 * some other test database's are compared.
 */
export async function fingerprint(pool: pg.Pool, readerRole: string): Promise<Fingerprint> {
  const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[];
  const data = await q(`SELECT ${DATA_TABLES.map((t) => `(SELECT count(*) FROM public.${t}) AS ${t}`).join(', ')},
    (SELECT coalesce(sum(id), 0) FROM public.crimes) AS crime_ids, (SELECT count(*) FILTER (WHERE arrest) FROM public.crimes) AS arrests,
    (SELECT count(*) FROM public.schema_migrations) AS migrations, obj_description('public.crimes'::regclass) AS comment`);
  const appCounts = await q<{ t: string; n: number }>(
    APP_TABLES.map((t) => `SELECT '${t}' AS t, count(*)::int AS n FROM datadesk_app.${t}`).join(' UNION ALL '),
  );
  const others = `rolname LIKE 'datadesk\\_reader\\_dd\\_%' AND rolname <> $1 OR rolname LIKE 'dd\\_%'`;
  const roles = await q(
    `SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconnlimit, rolconfig,
            ARRAY(SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid ORDER BY 1) AS member_of
     FROM pg_roles r WHERE NOT (${others}) ORDER BY rolname`,
    [readerRole],
  );
  const privileges = await q(
    `SELECT 'table' AS kind, format('%I.%I', n.nspname, c.relname) AS name, c.relacl::text AS acl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname IN ('public', 'datadesk_app') AND c.relacl IS NOT NULL
     UNION ALL SELECT 'schema', nspname, nspacl::text FROM pg_namespace WHERE nspname IN ('public', 'datadesk_app')
     UNION ALL SELECT 'function', p.oid::regprocedure::text, p.proacl::text FROM pg_proc p WHERE p.proacl IS NOT NULL
     UNION ALL SELECT 'database', datname, datacl::text FROM pg_database WHERE datname = current_database()
     UNION ALL SELECT 'setting', coalesce(s.setrole::regrole::text, '*'), s.setconfig::text FROM pg_db_role_setting s
       WHERE s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) OR s.setrole = (SELECT oid FROM pg_roles WHERE rolname = $1)
     ORDER BY 1, 2`,
    [readerRole],
  );
  const objects = await q(
    `SELECT n.nspname, c.relname, c.relkind, c.relpersistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg\\_temp\\_%' AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%'
     UNION ALL SELECT 'temporary', count(*)::text, 'r', 't' FROM pg_class WHERE relpersistence = 't' AND relowner = (SELECT oid FROM pg_roles WHERE rolname = $1)
     UNION ALL SELECT 'function', p.oid::regprocedure::text, 'f', '' FROM pg_proc p WHERE p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
     UNION ALL SELECT 'extension', extname, 'e', '' FROM pg_extension
     UNION ALL SELECT 'schema', nspname, 'n', '' FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%'
     ORDER BY 1, 2`,
    [readerRole],
  );
  const [{ n: largeObjects }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM pg_largeobject_metadata');
  return { data, app: Object.fromEntries(appCounts.map((r) => [r.t, r.n])), roles, privileges, objects, largeObjects };
}
