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

/** EXPLAIN of one statement, on a client inside withReadOnly: why its plan is over `budget`, or undefined. */
async function explainProblem(client: pg.PoolClient, statement: string, budget?: ExplainBudget): Promise<string | undefined> {
  const explained = await client.query(oneStatement(`EXPLAIN (VERBOSE, FORMAT JSON) ${statement}`));
  const problem = budget ? explainBudgetProblem((explained.rows[0] as { 'QUERY PLAN': unknown })['QUERY PLAN'], budget) : undefined;
  return problem && `The query is too big to run: ${problem}.`;
}

/** A timeout, a limit or a database that is down says nothing about the query's validity. */
const saysNothingOfTheQuery = (error: unknown) =>
  error instanceof QueryTimeoutError || error instanceof QueryTooBigError || error instanceof DatabaseUnavailableError;

/** PostgreSQL's refusal of a query, as the model is told it. DETAIL and HINT carry the fix more often than the message. */
function rejection(error: unknown): string {
  const e = error as Error & { detail?: string; hint?: string };
  const extra = [e.detail && `DETAIL: ${e.detail}`, e.hint && `HINT: ${e.hint}`].filter(Boolean).join(' ');
  return `PostgreSQL rejected the query: ${e.message}${extra ? ` (${extra})` : ''}`;
}

/** The guard and the word check, without the database: the statement to EXPLAIN and run, or why not. */
export async function checkWithoutDatabase(sql: string, budget?: ExplainBudget): Promise<Validation> {
  const verdict = await checkSql(sql);
  if (!verdict.ok) return { ok: false, error: verdict.message };
  // what a person reads of a model's query (its names, text values, comments) is model text like any other
  const words = budget ? await sqlWordsProblem(sql) : undefined;
  if (words)
    return {
      ok: false,
      error: `The query's column names, text values and comments must be plain words (${words.replace(/^it /, 'one ')}): name columns plainly, e.g. incidents.`,
    };
  return { ok: true, statement: verdict.statement };
}

/** `budget`: judge the plan's size (model-written SQL; see db/explain-budget.ts); our compiled SQL is not judged. */
export async function validateSql(pool: pg.Pool, sql: string, statementTimeoutMs: number, budget?: ExplainBudget): Promise<Validation> {
  const checked = await checkWithoutDatabase(sql, budget);
  if (!checked.ok) return checked;
  try {
    const problem = await withReadOnly(pool, { statementTimeoutMs, watchdog: true }, (client) =>
      explainProblem(client, checked.statement, budget),
    );
    return problem ? { ok: false, error: problem } : checked;
  } catch (error) {
    if (saysNothingOfTheQuery(error)) throw error;
    return { ok: false, error: rejection(error) };
  }
}

export type CheckedRun =
  /** `ran`: the statement whose rows these are; `movedError`: why `moved` was not run, when it was given and failed its EXPLAIN */
  | { ok: true; result: QueryResult; ran: string; movedError?: string }
  /** the statement's EXPLAIN was refused by PostgreSQL or by the budget: nothing ran */
  | { ok: false; error: string };

export interface CheckedRunOptions {
  statementTimeoutMs: number;
  /** judge the statement's plan (model-written SQL) */
  budget?: ExplainBudget;
  keepRows?: number;
  maxResultBytes?: number;
  /** the same statement moved onto rollups: run instead when PostgreSQL accepts it (EXPLAIN, not judged by the budget) */
  moved?: string;
}

/**
 * A statement the guard passed (checkWithoutDatabase), EXPLAINed and run in ONE read-only transaction under the
 * same walls (statement timeout, watchdog rearmed for each statement, result-bytes cap): four round trips, five with
 * a moved form, where validateSql then runSql took six (nine). Nothing runs unless its EXPLAIN passed. A moved form
 * that PostgreSQL refuses has aborted the transaction: the statement as written then runs in a transaction of its own.
 */
export async function runChecked(pool: pg.Pool, statement: string, options: CheckedRunOptions): Promise<CheckedRun> {
  const { statementTimeoutMs, budget, keepRows = 1_000, maxResultBytes, moved } = options;
  let phase = 'explain' as 'explain' | 'explain moved' | 'run';
  try {
    return await withReadOnly(pool, { statementTimeoutMs, maxResultBytes, watchdog: true }, async (client, rearm) => {
      const problem = await explainProblem(client, statement, budget);
      if (problem) return { ok: false, error: problem };
      let ran = statement;
      if (moved) {
        phase = 'explain moved';
        rearm();
        await explainProblem(client, moved);
        ran = moved;
      }
      phase = 'run';
      rearm();
      return { ok: true, result: await resultOn(client, ran, keepRows), ran };
    });
  } catch (error) {
    if (phase === 'run' || saysNothingOfTheQuery(error)) throw error;
    if (phase === 'explain') return { ok: false, error: rejection(error) };
    const result = await runSql(pool, statement, statementTimeoutMs, keepRows, maxResultBytes);
    return { ok: true, result, ran: statement, movedError: rejection(error) };
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
  return withReadOnly(pool, { statementTimeoutMs, maxResultBytes, watchdog: true }, (client) => resultOn(client, sql, keepRows));
}

/** The rows of `sql` (at most `keepRows`) and its true count, on a client inside withReadOnly. */
async function resultOn(client: pg.PoolClient, sql: string, keepRows: number): Promise<QueryResult> {
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
}
