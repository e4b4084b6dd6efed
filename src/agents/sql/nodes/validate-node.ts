// Node 4, validate: the guard on PostgreSQL's own parser and the checks of what
// the query claims and shows. Its EXPLAIN, under the same walls, is the first
// statement of the run node's transaction: nothing runs unless it passes (one
// transaction for both, where two took six round trips). A failure, here or of
// the EXPLAIN, goes back to generate with the error,
// at most MAX_ATTEMPTS times (once for a verified query: it would fail again).
// The model's SQL must read the data: a constant (`SELECT 42 AS thefts`) reads
// no table, and would be shown as the count it pretends to be.
import { makeAnswer } from '../../../core/answer.js';
import { inertProblem } from '../../../core/inert-text.js';
import { checkSql } from '../../../db/sql-guard.js';
import { checkWithoutDatabase } from '../execute.js';
import { DEFAULT_EXPLAIN_BUDGET } from '../../../db/explain-budget.js';
import type { SqlNodeName, SqlState } from '../state.js';
import { isOwnSql, queryPool } from './query-pool.js';
import { columnClaimProblem } from '../column-claims.js';

const MAX_ATTEMPTS = 3;

/**
 * The guard's and PostgreSQL's messages are our sentences around the model's names: a quoted identifier
 * (column "…" does not exist) or a qualified one (pg_catalog.pg_user). The message is shown when every such
 * name is inert, else said in our words.
 */
function shownProblem(error: string): string {
  const quoted = [...error.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  const names = error
    .replace(/"[^"]*"/g, ' ')
    .split(/[\s(),;]+/)
    .filter((t) => /[._]/.test(t))
    .map((t) => t.replace(/[.:]+$/, ''));
  return [...quoted, ...names].some((name) => inertProblem(name)) ? 'the query named things I may not show or run.' : error;
}

/** What the model is told when its query reads no table (the guard's own refusals come from checkWithoutDatabase). */
export const READS_NO_DATA =
  'The query must read the crime data: it reads no table, so its result would not come from the data (a constant such as SELECT 42 AS thefts is no answer). Select from crimes (or the other data tables) and compute the answer from their rows.';

/**
 * What the model's query claims falsely: an answer from no table (made up), or a column named for what it does
 * not compute (column-claims.ts). Undefined when it claims nothing false, or the guard refuses it (its own words).
 */
async function falseClaim(sql: string): Promise<string | undefined> {
  const guard = await checkSql(sql);
  if (!guard.ok) return undefined;
  return guard.tables.length === 0 ? READS_NO_DATA : columnClaimProblem(sql);
}

export async function validateNode(state: SqlState): Promise<SqlNodeName | 'end'> {
  state.progress?.('Checking the query');
  state.stepNote = `attempt ${state.attempt}`;
  const candidate = state.candidate!;
  const pool = queryPool(state);
  if (!pool) return 'end';
  // the model's SQL is judged by its plan's size too; ours (compiled from a plan, a verified pair) is known
  const claim = isOwnSql(state) ? undefined : await falseClaim(candidate);
  const verdict = claim
    ? { ok: false as const, error: claim }
    : await checkWithoutDatabase(candidate, isOwnSql(state) ? undefined : DEFAULT_EXPLAIN_BUDGET);
  if (verdict.ok) {
    state.sql = verdict.statement;
    return 'run';
  }
  return sendBack(state, candidate, verdict.error);
}

/**
 * A query that failed (its check, or PostgreSQL while it ran) goes back to the model with the error while attempts
 * remain; after the last, the person is told the last problem.
 */
export function sendBack(state: SqlState, sql: string, error: string): 'generate' | 'end' {
  state.previous = { sql, error };
  const llmWrites = Boolean(state.deps.llm) && !state.llmUnavailable;
  if (llmWrites && state.attempt < MAX_ATTEMPTS) return 'generate';
  state.answer = makeAnswer({
    kind: 'error',
    route: 'sql',
    trace: state.trace,
    retryable: false,
    message: `I could not write a valid query for this after ${state.attempt} attempt${state.attempt === 1 ? '' : 's'}. The last problem: ${shownProblem(error)} Try rephrasing, or ask for something narrower.`,
  });
  return 'end';
}
