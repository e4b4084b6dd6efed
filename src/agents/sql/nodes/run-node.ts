// Node 5, run: read-only, on the reader login, under the statement timeout
// and the result-bytes cap; rows through a cursor, the true total counted.
import { runSql } from '../execute.js';
import type { SqlNodeName, SqlState } from '../state.js';
import { queryPool } from './query-pool.js';

export async function runNode(state: SqlState): Promise<SqlNodeName> {
  state.progress?.('Running the query');
  // at least 1,000 rows to narrate and chart a whole series; more when the caller shows more (ask --json --max-rows)
  const keep = Math.max(1_000, state.deps.displayRows);
  state.result = await runSql(queryPool(state)!, state.sql!, state.deps.statementTimeoutMs, keep, state.deps.maxResultBytes);
  return 'synthesize';
}
