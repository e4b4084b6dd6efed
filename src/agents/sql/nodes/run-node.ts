// Node 5, run: read-only, on the reader login, under the statement timeout
// and the result-bytes cap; rows through a cursor, the true total counted.
// A query that counts over crimes in a way a rollup holds runs on that rollup
// (src/db/aggregate-navigation.ts), and the SQL shown says so.
import pg from 'pg';
import { navigateAggregates } from '../../../db/aggregate-navigation.js';
import { runSql, validateSql } from '../execute.js';
import type { SqlNodeName, SqlState } from '../state.js';
import { isOwnSql, queryPool } from './query-pool.js';
import { sendBack } from './validate-node.js';

/**
 * PostgreSQL's classes of errors a query meets only on the rows (division by zero, a cast of a value, a subquery
 * of more than one row): the model's query was wrong, not the database, and the model is told so. Timeouts, limits
 * and a database that is down are the agent's to say (agent.ts).
 */
const RUNTIME_ERROR = /^(21|22|42|0A)/;

/**
 * The statement moved onto the rollups that hold its counts, checked by PostgreSQL like any query (EXPLAIN);
 * as written when none holds it, or when the moved form does not validate.
 */
async function onRollups(state: SqlState, pool: pg.Pool, statement: string): Promise<string> {
  const moved = await navigateAggregates(statement);
  if (!moved) return statement;
  const check = await validateSql(pool, moved.sql, state.deps.statementTimeoutMs);
  if (check.ok) {
    state.stepNote = `answered from ${moved.rollups.join(', ')}`;
    state.asWritten = statement;
    return moved.sql;
  }
  state.deps.logger.warn(
    `sql agent: the query moved onto ${moved.rollups.join(', ')} did not validate (${check.error}); it runs on crimes`,
  );
  return statement;
}

export async function runNode(state: SqlState): Promise<SqlNodeName | 'end'> {
  state.progress?.('Running the query');
  const pool = queryPool(state)!;
  const written = state.sql!;
  state.sql = await onRollups(state, pool, written);
  // at least 1,000 rows to narrate and chart a whole series; more when the caller shows more (ask --json --max-rows)
  const keep = Math.max(1_000, state.deps.displayRows);
  try {
    state.result = await runSql(pool, state.sql, state.deps.statementTimeoutMs, keep, state.deps.maxResultBytes);
  } catch (error) {
    // a model's query that PostgreSQL stopped on its rows: back to the model, then said plainly; never "something went wrong"
    if (isOwnSql(state) || !(error instanceof pg.DatabaseError) || !RUNTIME_ERROR.test(error.code ?? '')) throw error;
    state.sql = state.asWritten = undefined;
    return sendBack(state, written, `PostgreSQL stopped the query while it ran: ${error.message}.`);
  }
  return 'synthesize';
}
