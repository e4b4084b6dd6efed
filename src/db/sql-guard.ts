// The SQL guard: generated SQL is parsed with PostgreSQL's own parser
// (libpg-query, compiled to WASM) and must be exactly one SELECT that reads
// only the allowed tables, modifies nothing anywhere in its tree (no
// `WITH x AS (DELETE ... RETURNING *)`), takes no locks, creates nothing, and
// calls no function that sleeps, reads files, changes settings or touches other
// sessions. The read-only transaction, the read-only role and the statement
// timeout stand behind it; this is the first of the four walls.
import { parse } from 'libpg-query';

export const ALLOWED_TABLES = [
  'crimes', 'community_areas', 'shanghai_stock_exchange', 'shenzhen_stock_exchange', 'beijing_stock_exchange', 'stock_listings',
] as const;

export type GuardReason =
  | 'empty'
  | 'parse_error'
  | 'multiple_statements'
  | 'not_select'
  | 'data_modifying'
  | 'select_into'
  | 'locking'
  | 'system_catalog'
  | 'forbidden_table'
  | 'forbidden_function';

export type GuardVerdict =
  | { ok: true; tables: string[] }
  | { ok: false; reason: GuardReason; message: string };

/** Functions that sleep, read or list server files, change settings, signal or lock other sessions, or write. */
const FORBIDDEN_FUNCTIONS = new Set([
  'set_config', 'current_setting', 'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile',
  'pg_switch_wal', 'pg_promote', 'pg_notify', 'nextval', 'setval', 'currval', 'lastval', 'pg_export_snapshot',
  'pg_log_backend_memory_contexts', 'pg_import_system_collations', 'pg_nextoid', 'query_to_xml', 'table_to_xml',
  'cursor_to_xml', 'database_to_xml', 'schema_to_xml', 'query_to_xml_and_xmlschema', 'table_to_xml_and_xmlschema',
  'pg_stat_file', 'pg_relation_filepath', 'pg_filenode_relation', 'inet_server_addr', 'inet_server_port',
  'pg_backend_pid', 'pg_blocking_pids', 'pg_safe_snapshot_blocking_pids', 'pg_current_logfile', 'pg_ls_waldir',
  'pg_ls_logdir', 'pg_ls_tmpdir', 'pg_ls_archive_statusdir', 'txid_current', 'pg_current_xact_id',
  'pg_sleep', 'pg_sleep_for', 'pg_sleep_until',
]);
const FORBIDDEN_PREFIXES = [
  'pg_sleep', 'pg_read_', 'pg_ls_', 'pg_file_', 'lo_', 'dblink', 'pg_advisory', 'pg_try_advisory', 'pg_create_',
  'pg_drop_', 'pg_replication_', 'pg_logical_', 'pg_backup_', 'pg_start_backup', 'pg_stop_backup', 'pg_wal_',
  'pg_stat_reset', 'txid_', 'pg_xact_', 'pg_terminate', 'pg_cancel', 'pg_signal',
];

const WRITE_NODES: Record<string, string> = {
  InsertStmt: 'INSERT', UpdateStmt: 'UPDATE', DeleteStmt: 'DELETE', MergeStmt: 'MERGE',
};

/** Statement node names -> the words a reader knows. */
function statementWord(node: string): string {
  const known: Record<string, string> = {
    ...WRITE_NODES, CreateStmt: 'CREATE TABLE', DropStmt: 'DROP', AlterTableStmt: 'ALTER TABLE', TruncateStmt: 'TRUNCATE',
    GrantStmt: 'GRANT', GrantRoleStmt: 'GRANT', CopyStmt: 'COPY', VariableSetStmt: 'SET', VariableShowStmt: 'SHOW',
    TransactionStmt: 'a transaction command', DoStmt: 'DO', CallStmt: 'CALL', ExplainStmt: 'EXPLAIN', VacuumStmt: 'VACUUM',
    CreateTableAsStmt: 'CREATE TABLE AS', ViewStmt: 'CREATE VIEW', CreateFunctionStmt: 'CREATE FUNCTION', IndexStmt: 'CREATE INDEX',
    LockStmt: 'LOCK', NotifyStmt: 'NOTIFY', ListenStmt: 'LISTEN', PrepareStmt: 'PREPARE', ExecuteStmt: 'EXECUTE',
    DeclareCursorStmt: 'DECLARE CURSOR', RuleStmt: 'CREATE RULE', CreateRoleStmt: 'CREATE ROLE', AlterRoleStmt: 'ALTER ROLE',
    RenameStmt: 'ALTER ... RENAME', CreateSchemaStmt: 'CREATE SCHEMA', CreateExtensionStmt: 'CREATE EXTENSION', DiscardStmt: 'DISCARD',
    CheckPointStmt: 'CHECKPOINT', ReindexStmt: 'REINDEX', ClusterStmt: 'CLUSTER', RefreshMatViewStmt: 'REFRESH MATERIALIZED VIEW',
    CommentStmt: 'COMMENT', LoadStmt: 'LOAD', VariableResetStmt: 'RESET', DeallocateStmt: 'DEALLOCATE', FetchStmt: 'FETCH',
    ClosePortalStmt: 'CLOSE', CreateTrigStmt: 'CREATE TRIGGER', AlterSystemStmt: 'ALTER SYSTEM', SecLabelStmt: 'SECURITY LABEL',
  };
  return known[node] ?? node.replace(/Stmt$/, '').toUpperCase();
}

class Refusal extends Error {
  constructor(readonly reason: GuardReason, message: string) {
    super(message);
  }
}

type Json = Record<string, unknown>;

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((n) => ((n as Json).String as { sval?: string } | undefined)?.sval ?? '') : [];
}

/** Collects CTE names anywhere in the tree: they are relations the query may read. */
function cteNames(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => cteNames(n, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'CommonTableExpr') out.add(String((value as Json).ctename).toLowerCase());
      cteNames(value, out);
    }
  }
  return out;
}

function walk(node: unknown, ctes: Set<string>, tables: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) walk(n, ctes, tables);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Json)) {
    if (WRITE_NODES[key]) {
      throw new Refusal('data_modifying', `The query contains ${WRITE_NODES[key]}: only reading is allowed, also inside WITH.`);
    }
    if (key.endsWith('Stmt') && key !== 'SelectStmt') {
      throw new Refusal('not_select', `The query contains ${statementWord(key)}: only SELECT is allowed.`);
    }
    if (key === 'SelectStmt') {
      const s = value as Json;
      if (s.intoClause) throw new Refusal('select_into', 'SELECT INTO creates a table: only reading is allowed.');
      if (s.lockingClause) throw new Refusal('locking', 'FOR UPDATE/SHARE locks rows: only plain reading is allowed.');
    }
    if (key === 'RangeVar') {
      const r = value as { schemaname?: string; relname: string; catalogname?: string };
      const rel = r.relname.toLowerCase();
      const schema = r.schemaname?.toLowerCase();
      if (schema && schema !== 'public') {
        throw new Refusal(schema === 'pg_catalog' || schema === 'information_schema' ? 'system_catalog' : 'forbidden_table',
          `The query reads ${schema}.${rel}: only the data tables are available (${ALLOWED_TABLES.join(', ')}).`);
      }
      if (!schema && ctes.has(rel)) continue;
      if (rel.startsWith('pg_') || rel.startsWith('information_schema')) {
        throw new Refusal('system_catalog', `The query reads the system catalog ${rel}: only the data tables are available (${ALLOWED_TABLES.join(', ')}).`);
      }
      if (!(ALLOWED_TABLES as readonly string[]).includes(rel)) {
        throw new Refusal('forbidden_table', `The query reads ${rel}, which is not available: the tables are ${ALLOWED_TABLES.join(', ')}.`);
      }
      tables.add(rel);
      continue;
    }
    if (key === 'FuncCall') {
      const parts = names((value as Json).funcname).map((p) => p.toLowerCase());
      const fn = parts.at(-1) ?? '';
      const schema = parts.length > 1 ? parts[0] : undefined;
      if (schema && schema !== 'pg_catalog' && schema !== 'public') {
        throw new Refusal('forbidden_function', `The query calls ${parts.join('.')}: functions of other schemas are not allowed.`);
      }
      if (FORBIDDEN_FUNCTIONS.has(fn) || FORBIDDEN_PREFIXES.some((p) => fn.startsWith(p))) {
        throw new Refusal('forbidden_function', `The query calls ${fn}(), which is not allowed (it can sleep, read files, change settings or touch other sessions).`);
      }
    }
    walk(value, ctes, tables);
  }
}

export async function checkSql(sql: string): Promise<GuardVerdict> {
  if (!sql.trim()) return { ok: false, reason: 'empty', message: 'The query is empty.' };
  let tree: { stmts?: { stmt: Json }[] };
  try {
    tree = (await parse(sql)) as unknown as { stmts?: { stmt: Json }[] };
  } catch (error) {
    const e = error as Error & { sqlDetails?: { cursorPosition?: number } };
    const at = e.sqlDetails?.cursorPosition;
    return { ok: false, reason: 'parse_error', message: `PostgreSQL cannot parse the query: ${e.message}${at !== undefined ? ` (at character ${at + 1})` : ''}.` };
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0) return { ok: false, reason: 'empty', message: 'The query has no statement.' };
  if (stmts.length > 1) return { ok: false, reason: 'multiple_statements', message: `The query has ${stmts.length} statements: exactly one SELECT is allowed.` };
  const [kind] = Object.keys(stmts[0].stmt);
  if (kind !== 'SelectStmt') {
    return WRITE_NODES[kind]
      ? { ok: false, reason: 'data_modifying', message: `This is ${WRITE_NODES[kind]}: only reading is allowed.` }
      : { ok: false, reason: 'not_select', message: `This is ${statementWord(kind)}: only SELECT is allowed.` };
  }
  try {
    const tables = new Set<string>();
    walk(stmts[0].stmt, cteNames(stmts[0].stmt, new Set()), tables);
    return { ok: true, tables: [...tables].sort() };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}
