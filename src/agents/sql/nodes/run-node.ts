// Node 5, run: one read-only transaction on the reader login, under the
// statement timeout and the result-bytes cap: the query's EXPLAIN (the check
// validate leaves to here, so that both share the transaction), then its rows
// and the true total.
// A query that counts over crimes in a way a rollup holds runs on that rollup
// (src/db/aggregate-navigation.ts), and the SQL shown says so.
import pg from 'pg';
import { navigateAggregates } from '../../../db/aggregate-navigation.js';
import { checkWithoutDatabase, runChecked } from '../execute.js';
import { DEFAULT_EXPLAIN_BUDGET } from '../../../db/explain-budget.js';
import type { SqlNodeName, SqlState } from '../state.js';
import { isOwnSql, queryPool } from './query-pool.js';
import { sendBack } from './validate-node.js';

/**
 * PostgreSQL's classes of errors a query meets only on the rows (division by zero, a cast of a value, a subquery
 * of more than one row): the model's query was wrong, not the database, and the model is told so. Timeouts, limits
 * and a database that is down are the agent's to say (agent.ts).
 */
const RUNTIME_ERROR = /^(21|22|42|0A)/;

const warnNotMoved = (state: SqlState, rollups: string[], error: string | undefined) =>
  state.deps.logger.warn(`sql agent: the query moved onto ${rollups.join(', ')} did not validate (${error}); it runs on crimes`);

export async function runNode(state: SqlState): Promise<SqlNodeName | 'end'> {
  state.progress?.('Running the query');
  const pool = queryPool(state)!;
  const written = state.sql!;
  // a statement that counts over crimes in a way a rollup holds runs on the rollup, when PostgreSQL accepts the moved form
  const navigated = await navigateAggregates(written);
  // the moved form passes the guard like any query before PostgreSQL sees it
  const guard = navigated && (await checkWithoutDatabase(navigated.sql));
  if (navigated && guard && !guard.ok) warnNotMoved(state, navigated.rollups, guard.error);
  const moved = guard?.ok ? navigated : undefined;
  // at least 1,000 rows to narrate and chart a whole series; more when the caller shows more (ask --json --max-rows)
  const keep = Math.max(1_000, state.deps.displayRows);
  let run;
  try {
    run = await runChecked(pool, written, {
      statementTimeoutMs: state.deps.statementTimeoutMs,
      // the model's SQL is judged by its plan's size too; ours (compiled from a plan, a verified pair) is known
      budget: isOwnSql(state) ? undefined : DEFAULT_EXPLAIN_BUDGET,
      keepRows: keep,
      maxResultBytes: state.deps.maxResultBytes,
      moved: moved?.sql,
    });
  } catch (error) {
    // a model's query that PostgreSQL stopped on its rows: back to the model, then said plainly; never "something went wrong"
    if (isOwnSql(state) || !(error instanceof pg.DatabaseError) || !RUNTIME_ERROR.test(error.code ?? '')) throw error;
    state.sql = state.asWritten = undefined;
    return sendBack(state, written, `PostgreSQL stopped the query while it ran: ${error.message}.`);
  }
  // its EXPLAIN refused (by PostgreSQL or the plan's budget): nothing ran, the query goes back as from validate
  if (!run.ok) {
    state.sql = undefined;
    return sendBack(state, state.candidate ?? written, run.error);
  }
  if (moved && run.ran === moved.sql) {
    state.stepNote = `answered from ${moved.rollups.join(', ')}`;
    state.asWritten = written;
    state.sql = moved.sql;
  } else if (moved) {
    warnNotMoved(state, moved.rollups, run.movedError);
  }
  state.result = run.result;
  return 'synthesize';
}
