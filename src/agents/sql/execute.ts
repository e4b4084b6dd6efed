// The validate and run nodes. Validate: the guard, then EXPLAIN, both under the
// same walls as the real run. Run: a READ ONLY transaction on the pool given
// (the reader login's for model-written SQL) with a statement timeout and a cap
// on result bytes, the rows fetched through a server-side cursor up to the
// display cap, and the true total counted by moving the cursor to the end.
import pg from 'pg';
import type { Cell } from '../../core/answer.js';
import type { QueryResult } from '../../core/result-shape.js';
import { checkSql } from '../../db/sql-guard.js';
import { DatabaseUnavailableError } from '../../db/errors.js';
import { QueryTimeoutError, QueryTooBigError, withReadOnly } from '../../db/read-only.js';
import { explainBudgetProblem, type ExplainBudget } from '../../db/explain-budget.js';
import { sqlWordsProblem } from '../../db/sql-words.js';

/**
 * Sent with the extended protocol, which takes exactly one statement: a second
 * wall behind the guard's own check (the simple protocol runs every statement
 * of `SELECT 1; DROP …`). node-postgres supports queryMode; its types lag.
 */
const oneStatement = (text: string) => ({ text, queryMode: 'extended' }) as pg.QueryConfig;

/** statement: the SQL as it runs (a trailing ";" or "-- comment" after it left out: they broke the wrapping queries) */
export type Validation = { ok: true; statement: string } | { ok: false; error: string };

/** `budget`: judge the plan's size (model-written SQL; see db/explain-budget.ts); our compiled SQL is not judged. */
export async function validateSql(pool: pg.Pool, sql: string, statementTimeoutMs: number, budget?: ExplainBudget): Promise<Validation> {
  const verdict = await checkSql(sql);
  if (!verdict.ok) return { ok: false, error: verdict.message };
  // what a person reads of a model's query (its names, text values, comments) is model text like any other
  const words = budget ? await sqlWordsProblem(sql) : undefined;
  if (words)
    return {
      ok: false,
      error: `The query's column names, text values and comments must be plain words (${words.replace(/^it /, 'one ')}): name columns plainly, e.g. incidents.`,
    };
  try {
    const explained = await withReadOnly(pool, { statementTimeoutMs, watchdog: true }, (client) =>
      client.query(oneStatement(`EXPLAIN (VERBOSE, FORMAT JSON) ${verdict.statement}`)),
    );
    const problem = budget ? explainBudgetProblem((explained.rows[0] as { 'QUERY PLAN': unknown })['QUERY PLAN'], budget) : undefined;
    if (problem) return { ok: false, error: `The query is too big to run: ${problem}.` };
    return { ok: true, statement: verdict.statement };
  } catch (error) {
    // a timeout, a limit or a database that is down says nothing about the query's validity
    if (error instanceof QueryTimeoutError || error instanceof QueryTooBigError || error instanceof DatabaseUnavailableError) throw error;
    // DETAIL and HINT carry the fix more often than the message ("Perhaps you meant to reference the column …")
    const e = error as Error & { detail?: string; hint?: string };
    const extra = [e.detail && `DETAIL: ${e.detail}`, e.hint && `HINT: ${e.hint}`].filter(Boolean).join(' ');
    return { ok: false, error: `PostgreSQL rejected the query: ${e.message}${extra ? ` (${extra})` : ''}` };
  }
}

const toCell = (v: unknown): Cell => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  return JSON.stringify(v);
};

const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
/** A timestamp as the database wrote it: "2021-01-01" at midnight, else "2021-01-01 06:30:00". */
const wallClock = (text: string) => text.replace(/\.\d+/, '').replace(/ 00:00:00$/, '');

/**
 * Timestamps stay the wall-clock text PostgreSQL sends: parsed into a JS Date
 * they were read in the process's time zone, so the same January showed as
 * 2020-12-31 16:00 under TZ=Asia/Shanghai. A server's TZ must not change the data.
 */
const resultTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP || oid === TIMESTAMPTZ ? wallClock : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

// numeric (avg, round, percentile) arrives as text from pg; show it as a number
const NUMERIC_OIDS = new Set([1700, 700, 701, 20, 21, 23]);

/** The statement that fetches a result: the query as a subquery, at most `keep` + 1 rows. */
export const resultStatement = (sql: string, keep: number) =>
  `SELECT * FROM (\n${sql.trim().replace(/;+$/, '')}\n) AS answer LIMIT ${keep + 1}`;
/** The statement that counts a result that did not fit. */
const countStatement = (sql: string) => `SELECT count(*) AS total FROM (\n${sql.trim().replace(/;+$/, '')}\n) AS answer`;

/**
 * Runs the query; keeps the first `keepRows` rows (enough to narrate and chart
 * a whole series: the display cap is applied when the answer is built) and
 * reports the true row count. A plain statement, not a cursor: PostgreSQL
 * plans no parallel workers for a cursor, and most answers are aggregates
 * over millions of rows that parallel scans make several times faster. Only a
 * result longer than `keepRows` is counted again, by a second statement.
 */
export async function runSql(
  pool: pg.Pool,
  sql: string,
  statementTimeoutMs: number,
  keepRows = 1_000,
  maxResultBytes?: number,
): Promise<QueryResult> {
  return withReadOnly(pool, { statementTimeoutMs, maxResultBytes, watchdog: true }, async (client) => {
    const first = await client.query({ ...oneStatement(resultStatement(sql, keepRows)), rowMode: 'array', types: resultTypes });
    const numeric = first.fields.map((f) => NUMERIC_OIDS.has(f.dataTypeID));
    const rows = (first.rows as unknown[][])
      .slice(0, keepRows)
      .map((r) => r.map((v, i) => (numeric[i] && typeof v === 'string' ? Number(v) : toCell(v))));
    const rowCount =
      first.rows.length > keepRows
        ? Number((await client.query<{ total: string | number }>(oneStatement(countStatement(sql)))).rows[0].total)
        : rows.length;
    return { columns: first.fields.map((f) => f.name), rows, rowCount, truncated: rowCount > rows.length };
  });
}
