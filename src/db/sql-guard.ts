// The SQL guard: model-written SQL is parsed with PostgreSQL's own parser
// (libpg-query, compiled to WASM) and accepted only if every part of its tree
// is on the allow-list (fixtures/sql/guard-allowlist.json): exactly one SELECT,
// only the data relations, only listed pg_catalog functions in every call form
// (plain, qualified, quoted, functional notation `(x).f` and `alias.f`),
// only listed operators and casts, and only the parse-node types a reading
// query needs. Anything new in PostgreSQL's grammar is refused until listed.
// A query that could build a value too long to hold (replace of replace) is
// refused too (sql-growth.ts).
// The reader login, the READ ONLY transaction, role-level limits and revoked
// EXECUTE on dangerous built-ins stand behind it: this is the first wall.
import { parseSql } from './parse-sql.js';
import { sqlAllowList, type SqlAllowList } from './sql-allowlist.js';
import { stringGrowthProblem } from './sql-growth.js';

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
  | 'forbidden_function'
  | 'forbidden_construct'
  /** it could build a value too long to hold (nested replace, a collected list of lengthened text): sql-growth.ts */
  | 'too_long';

export type GuardVerdict =
  /** statement: the one statement's own text, without a trailing ";" or a comment after it */
  { ok: true; tables: string[]; statement: string } | { ok: false; reason: GuardReason; message: string };

const WRITE_NODES: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
};

/** Statement node names -> the words a reader knows. */
function statementWord(node: string): string {
  const known: Record<string, string> = {
    ...WRITE_NODES,
    CreateStmt: 'CREATE TABLE',
    DropStmt: 'DROP',
    AlterTableStmt: 'ALTER TABLE',
    TruncateStmt: 'TRUNCATE',
    GrantStmt: 'GRANT',
    GrantRoleStmt: 'GRANT',
    CopyStmt: 'COPY',
    VariableSetStmt: 'SET',
    VariableShowStmt: 'SHOW',
    TransactionStmt: 'a transaction command',
    DoStmt: 'DO',
    CallStmt: 'CALL',
    ExplainStmt: 'EXPLAIN',
    VacuumStmt: 'VACUUM',
    CreateTableAsStmt: 'CREATE TABLE AS',
    ViewStmt: 'CREATE VIEW',
    CreateFunctionStmt: 'CREATE FUNCTION',
    IndexStmt: 'CREATE INDEX',
    LockStmt: 'LOCK',
    NotifyStmt: 'NOTIFY',
    ListenStmt: 'LISTEN',
    PrepareStmt: 'PREPARE',
    ExecuteStmt: 'EXECUTE',
    DeclareCursorStmt: 'DECLARE CURSOR',
    RuleStmt: 'CREATE RULE',
    CreateRoleStmt: 'CREATE ROLE',
    AlterRoleStmt: 'ALTER ROLE',
    RenameStmt: 'ALTER ... RENAME',
    CreateSchemaStmt: 'CREATE SCHEMA',
    CreateExtensionStmt: 'CREATE EXTENSION',
    DiscardStmt: 'DISCARD',
    CheckPointStmt: 'CHECKPOINT',
    ReindexStmt: 'REINDEX',
    ClusterStmt: 'CLUSTER',
    RefreshMatViewStmt: 'REFRESH MATERIALIZED VIEW',
    CommentStmt: 'COMMENT',
    LoadStmt: 'LOAD',
    VariableResetStmt: 'RESET',
    DeallocateStmt: 'DEALLOCATE',
    FetchStmt: 'FETCH',
    ClosePortalStmt: 'CLOSE',
    CreateTrigStmt: 'CREATE TRIGGER',
    AlterSystemStmt: 'ALTER SYSTEM',
    SecLabelStmt: 'SECURITY LABEL',
  };
  return known[node] ?? node.replace(/Stmt$/, '').toUpperCase();
}

/** Parse-node names -> the words a reader knows, for refusals of constructs. */
const CONSTRUCT_WORDS: Record<string, string> = {
  ParamRef: 'a $n parameter',
  XmlExpr: 'an XML function',
  XmlSerialize: 'XMLSERIALIZE',
  RangeTableFunc: 'XMLTABLE',
  RangeTableSample: 'TABLESAMPLE',
  ColumnDef: 'a column definition list',
  CTESearchClause: 'SEARCH in WITH RECURSIVE',
  CTECycleClause: 'CYCLE in WITH RECURSIVE',
  JsonObjectConstructor: 'a JSON constructor',
  JsonArrayConstructor: 'a JSON constructor',
};

class Refusal extends Error {
  constructor(
    readonly reason: GuardReason,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;
const str = (n: unknown): string => ((n as Json | undefined)?.String as { sval?: string } | undefined)?.sval ?? '';
const strings = (list: unknown): string[] => (Array.isArray(list) ? list.map(str) : []);
const dataTables = (allow: SqlAllowList) => [...allow.relations.keys()].join(', ');

/**
 * What each range name (a table, its alias, a subquery's or a function's alias)
 * offers after a dot. `alias.name` is a column when the range has that column;
 * otherwise PostgreSQL calls the function `name(alias)`, so the guard must know
 * the columns. A name bound several times in one query offers only what every
 * binding offers (conservative: scoping of aliases is not modelled).
 */
class RangeNames {
  private readonly offers = new Map<string, Set<string>>();

  bind(name: string, columns: Iterable<string>): void {
    const next = new Set(columns);
    const prev = this.offers.get(name);
    this.offers.set(name, prev ? new Set([...prev].filter((c) => next.has(c))) : next);
  }

  has(range: string, column: string): boolean {
    return this.offers.get(range)?.has(column) ?? false;
  }

  known(range: string): boolean {
    return this.offers.has(range);
  }
}

/** Output column names of a SELECT, as PostgreSQL names them; '*' expands to every data column. */
function outputNames(select: Json | undefined, allow: SqlAllowList): string[] {
  if (!select) return [];
  // a set operation is named by its leftmost SELECT (libpg-query gives larg/rarg as bare SelectStmts, not wrapped nodes)
  if (select.larg) return outputNames(select.larg as Json, allow);
  if (Array.isArray(select.valuesLists)) {
    const first = (select.valuesLists[0] as Json | undefined)?.List as { items?: unknown[] } | undefined;
    return (first?.items ?? []).map((_, i) => `column${i + 1}`);
  }
  const out: string[] = [];
  for (const t of (select.targetList as Json[] | undefined) ?? []) {
    const r = t.ResTarget as Json;
    if (typeof r.name === 'string') out.push(r.name);
    else {
      const v = r.val as Json;
      if (v.ColumnRef) {
        const fields = (v.ColumnRef as Json).fields as Json[];
        const last = fields.at(-1)!;
        if (last.A_Star) out.push(...allow.columns);
        else out.push(str(last));
      } else if (v.FuncCall) out.push(strings((v.FuncCall as Json).funcname).at(-1)!);
    }
  }
  return out;
}

/** Output names of every CTE in the query, by CTE name (an ambiguous name offers what both offer: see RangeNames). */
function collectCtes(node: unknown, allow: SqlAllowList, ctes: Map<string, string[]>): Map<string, string[]> {
  if (Array.isArray(node)) node.forEach((n) => collectCtes(n, allow, ctes));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === 'CommonTableExpr') {
        const v = value as Json;
        const named = strings(v.aliascolnames);
        const out = named.length ? named : outputNames((v.ctequery as Json)?.SelectStmt as Json, allow);
        const prev = ctes.get(String(v.ctename));
        ctes.set(String(v.ctename), prev ? prev.filter((c) => out.includes(c)) : out);
      }
      collectCtes(value, allow, ctes);
    }
  }
  return ctes;
}

/** Collects every range binding of the query (first pass), so qualified names can be checked in the second. */
function collectRanges(node: unknown, allow: SqlAllowList, ctes: Map<string, string[]>, ranges: RangeNames): void {
  if (Array.isArray(node)) {
    node.forEach((n) => collectRanges(n, allow, ctes, ranges));
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Json)) {
    const v = value as Json;
    if (key === 'RangeVar') {
      const alias = v.alias as Json | undefined;
      const rel = String(v.relname);
      const renamed = strings(alias?.colnames);
      const base = [...(allow.relations.get(rel) ?? ctes.get(rel) ?? [])];
      ranges.bind(String(alias?.aliasname ?? rel), [...renamed, ...base.slice(renamed.length)]);
    } else if (key === 'RangeSubselect') {
      const alias = v.alias as Json | undefined;
      const renamed = strings(alias?.colnames);
      const base = outputNames((v.subquery as Json)?.SelectStmt as Json, allow);
      if (alias?.aliasname) ranges.bind(String(alias.aliasname), [...renamed, ...base.slice(renamed.length)]);
    } else if (key === 'RangeFunction') {
      // `unnest(...) AS g` offers the column g (a scalar range); `AS g(a, b)` offers a and b
      const alias = v.alias as Json | undefined;
      const fn = v.functions as Json[];
      const firstCall = ((fn?.[0]?.List as Json | undefined)?.items as Json[] | undefined)?.[0]?.FuncCall as Json | undefined;
      const name = String(alias?.aliasname ?? strings(firstCall?.funcname).at(-1) ?? '');
      const renamed = strings(alias?.colnames);
      ranges.bind(name, renamed.length ? renamed : [name]);
    } else if (key === 'JoinExpr' && (v.alias as Json | undefined)?.aliasname) {
      ranges.bind(String((v.alias as Json).aliasname), allow.columns);
    }
    collectRanges(value, allow, ctes, ranges);
  }
}

class GuardWalk {
  readonly tables = new Set<string>();

  constructor(
    private readonly allow: SqlAllowList,
    private readonly ranges: RangeNames,
  ) {}

  /** Visits a SELECT with the CTE names visible to it; WITH adds names with PostgreSQL's scoping. */
  select(s: Json, visible: ReadonlySet<string>): void {
    if (s.intoClause) throw new Refusal('select_into', 'SELECT INTO creates a table: only reading is allowed.');
    if (s.lockingClause) throw new Refusal('locking', 'FOR UPDATE/SHARE locks rows: only plain reading is allowed.');
    let inner = visible;
    const withClause = s.withClause as { ctes?: Json[]; recursive?: boolean } | undefined;
    if (withClause) {
      const ctes = (withClause.ctes ?? []).map((c) => c.CommonTableExpr as Json);
      const names = ctes.map((c) => String(c.ctename));
      ctes.forEach((cte, i) => {
        // a CTE sees the earlier ones of its WITH (all of them under RECURSIVE), never its siblings' inner names
        const seen = new Set([...visible, ...(withClause.recursive ? names : names.slice(0, i))]);
        const body = cte.ctequery as Json;
        const [kind] = Object.keys(body);
        if (WRITE_NODES[kind]) {
          throw new Refusal('data_modifying', `The query contains ${WRITE_NODES[kind]}: only reading is allowed, also inside WITH.`);
        }
        if (kind !== 'SelectStmt') throw new Refusal('not_select', `The query contains ${statementWord(kind)}: only SELECT is allowed.`);
        if (cte.search_clause || cte.cycle_clause) this.node('CTESearchClause', {}, seen);
        this.select(body.SelectStmt as Json, seen);
      });
      inner = new Set([...visible, ...names]);
    }
    for (const [key, value] of Object.entries(s)) {
      if (key === 'withClause') continue;
      // the branches of UNION/INTERSECT/EXCEPT come as bare SelectStmts, not `{SelectStmt: …}` nodes: walked as plain
      // objects they escaped the checks above, so `SELECT … INTO t FROM … UNION SELECT …` (which PostgreSQL runs as
      // CREATE TABLE AS) was accepted, and a branch's own WITH was not in scope for its FROM
      if ((key === 'larg' || key === 'rarg') && value) this.select(value as Json, inner);
      else this.visit(value, inner);
    }
  }

  visit(node: unknown, visible: ReadonlySet<string>): void {
    if (Array.isArray(node)) {
      for (const n of node) this.visit(n, visible);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Json)) {
      if (/^[A-Z]/.test(key)) this.node(key, value as Json, visible);
      else this.visit(value, visible);
    }
  }

  private node(type: string, v: Json, visible: ReadonlySet<string>): void {
    if (WRITE_NODES[type])
      throw new Refusal('data_modifying', `The query contains ${WRITE_NODES[type]}: only reading is allowed, also inside WITH.`);
    if (type.endsWith('Stmt') && type !== 'SelectStmt')
      throw new Refusal('not_select', `The query contains ${statementWord(type)}: only SELECT is allowed.`);
    if (!this.allow.nodeTypes.has(type)) {
      throw new Refusal(
        'forbidden_construct',
        `The query uses ${CONSTRUCT_WORDS[type] ?? type}, which is not allowed in a question's query.`,
      );
    }
    switch (type) {
      case 'SelectStmt':
        return this.select(v, visible);
      case 'RangeVar':
        return this.relation(v, visible);
      case 'FuncCall':
        this.function(strings(v.funcname));
        break;
      case 'TypeCast':
        this.cast(strings((v.typeName as Json).names));
        break;
      case 'A_Expr':
        if (!/BETWEEN/.test(String(v.kind))) this.operator(strings(v.name));
        break;
      case 'SubLink':
        if (v.operName) this.operator(strings(v.operName));
        break;
      case 'SortBy':
        if (v.useOp) this.operator(strings(v.useOp));
        break;
      case 'SQLValueFunction':
        if (!this.allow.currentValues.has(String(v.op))) {
          const word = String(v.op)
            .replace(/^SVFOP_/, '')
            .toLowerCase();
          throw new Refusal('forbidden_function', `The query asks for ${word}, which is about the server, not the data.`);
        }
        break;
      case 'ColumnRef':
        this.columnRef(v);
        break;
      case 'A_Indirection':
        for (const step of (v.indirection as Json[]) ?? []) {
          if (!step.A_Indices) {
            throw new Refusal(
              'forbidden_function',
              `The query uses field selection (${step.String ? `.${str(step)}` : '.*'}) on an expression: that form can call functions and is not allowed.`,
            );
          }
        }
        break;
    }
    this.visit(v, visible);
  }

  private relation(r: Json, visible: ReadonlySet<string>): void {
    const rel = String(r.relname);
    const schema = r.schemaname as string | undefined;
    const shown = [r.catalogname, schema, rel].filter(Boolean).join('.');
    if (r.catalogname || (schema && schema !== 'public')) {
      const catalog = schema === 'pg_catalog' || schema === 'information_schema' || schema?.startsWith('pg_');
      throw new Refusal(
        catalog ? 'system_catalog' : 'forbidden_table',
        `The query reads ${shown}: only the data tables are available (${dataTables(this.allow)}).`,
      );
    }
    if (!schema && visible.has(rel)) return; // a CTE in scope
    if (this.allow.relations.has(rel)) {
      this.tables.add(rel);
      return;
    }
    if (rel.startsWith('pg_') || rel.startsWith('information_schema')) {
      throw new Refusal(
        'system_catalog',
        `The query reads the system catalog ${rel}: only the data tables are available (${dataTables(this.allow)}).`,
      );
    }
    throw new Refusal('forbidden_table', `The query reads ${shown}, which is not available: the tables are ${dataTables(this.allow)}.`);
  }

  private function(parts: string[]): void {
    const name = parts.at(-1) ?? '';
    const schema = parts.length > 1 ? parts.slice(0, -1).join('.') : undefined;
    if ((schema && schema !== 'pg_catalog') || !this.allow.functions.has(name)) {
      throw new Refusal(
        'forbidden_function',
        `The query calls ${parts.join('.')}(), which is not on the list of allowed functions (aggregates, window, math, string, date and time functions).`,
      );
    }
  }

  private cast(parts: string[]): void {
    const name = parts.at(-1) ?? '';
    const schema = parts.length > 1 ? parts.slice(0, -1).join('.') : undefined;
    if ((schema && schema !== 'pg_catalog') || !this.allow.types.has(name)) {
      throw new Refusal(
        'forbidden_function',
        `The query casts to ${parts.join('.')}, which is not allowed: casts are allowed to numbers, text, dates, times, intervals and booleans.`,
      );
    }
  }

  private operator(parts: string[]): void {
    const op = parts.at(-1) ?? '';
    const schema = parts.length > 1 ? parts.slice(0, -1).join('.') : undefined;
    if ((schema && schema !== 'pg_catalog') || !this.allow.operators.has(op)) {
      throw new Refusal('forbidden_function', `The query uses the operator ${parts.join('.')}, which is not allowed.`);
    }
  }

  /** `a.b` (or `public.t.b`): b must be a column that the range a offers, else PostgreSQL would call b(a). */
  private columnRef(c: Json): void {
    const fields = c.fields as Json[];
    if (fields.length < 2 || fields.at(-1)!.A_Star) {
      if (fields.length > 3)
        throw new Refusal(
          'forbidden_table',
          'The query names a column through a database: only the data tables of this database are available.',
        );
      return;
    }
    const names = fields.map(str);
    if (names.length > 3 || (names.length === 3 && names[0] !== 'public')) {
      throw new Refusal(
        'forbidden_table',
        `The query names ${names.join('.')}: only the data tables are available (${dataTables(this.allow)}).`,
      );
    }
    const range = names.at(-2)!;
    const column = names.at(-1)!;
    if (!this.ranges.known(range)) {
      throw new Refusal('forbidden_construct', `The query refers to ${range}.${column}, but nothing in its FROM is called ${range}.`);
    }
    if (!this.ranges.has(range, column) && !this.allow.functions.has(column)) {
      throw new Refusal(
        'forbidden_function',
        `The query refers to ${range}.${column}, but ${range} has no column ${column} (PostgreSQL would read it as a call of the function ${column}).`,
      );
    }
  }
}

export async function checkSql(sql: string): Promise<GuardVerdict> {
  if (!sql.trim()) return { ok: false, reason: 'empty', message: 'The query is empty.' };
  let tree: { stmts?: { stmt: Json; stmt_location?: number | null; stmt_len?: number | null }[] };
  try {
    tree = (await parseSql(sql)) as unknown as typeof tree;
  } catch (error) {
    const e = error as Error & { sqlDetails?: { cursorPosition?: number } };
    const at = e.sqlDetails?.cursorPosition;
    return {
      ok: false,
      reason: 'parse_error',
      message: `PostgreSQL cannot parse the query: ${e.message}${at !== undefined ? ` (at character ${at + 1})` : ''}.`,
    };
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0) return { ok: false, reason: 'empty', message: 'The query has no statement.' };
  if (stmts.length > 1)
    return {
      ok: false,
      reason: 'multiple_statements',
      message: `The query has ${stmts.length} statements: exactly one SELECT is allowed.`,
    };
  const [kind] = Object.keys(stmts[0].stmt);
  if (kind !== 'SelectStmt') {
    return WRITE_NODES[kind]
      ? { ok: false, reason: 'data_modifying', message: `This is ${WRITE_NODES[kind]}: only reading is allowed.` }
      : { ok: false, reason: 'not_select', message: `This is ${statementWord(kind)}: only SELECT is allowed.` };
  }
  try {
    const allow = sqlAllowList();
    const ranges = new RangeNames();
    collectRanges(stmts[0].stmt, allow, collectCtes(stmts[0].stmt, allow, new Map()), ranges);
    const walk = new GuardWalk(allow, ranges);
    walk.select(stmts[0].stmt.SelectStmt as Json, new Set());
    // only a query made of allowed parts is measured: the bound models the listed functions
    const growth = stringGrowthProblem(stmts[0].stmt.SelectStmt as Json);
    if (growth) return { ok: false, reason: 'too_long', message: growth };
    const from = stmts[0].stmt_location ?? 0;
    const statement = sql.slice(from, stmts[0].stmt_len ? from + stmts[0].stmt_len : undefined).trim();
    return { ok: true, tables: [...walk.tables].sort(), statement };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}

/**
 * Whether a query's answer comes from the rows it reads: some output column refers to a column, a star
 * or count(*). `SELECT 41 AS incidents FROM crimes LIMIT 1` reads a table and answers nothing from it: a
 * pair promoted from such SQL would vouch for a constant.
 */
export async function answersFromData(sql: string): Promise<boolean> {
  let tree: { stmts?: { stmt: Json }[] };
  try {
    tree = (await parseSql(sql)) as unknown as typeof tree;
  } catch {
    return false;
  }
  const select = tree.stmts?.[0]?.stmt?.SelectStmt as Json | undefined;
  if (!select) return false;
  const dataNode = (node: unknown): boolean => {
    if (!node || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some(dataNode);
    const o = node as Record<string, unknown>;
    if ('ColumnRef' in o || 'A_Star' in o) return true;
    if ('FuncCall' in o && (o.FuncCall as { agg_star?: boolean }).agg_star) return true;
    return Object.values(o).some(dataNode);
  };
  // a UNION's arms, or the select itself
  const arms = (s: Json): Json[] => (s.larg || s.rarg ? [...arms(s.larg as Json), ...arms(s.rarg as Json)] : [s]);
  return arms(select).some((arm) => dataNode(arm.targetList));
}
