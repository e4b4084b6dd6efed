// Node 5, run: read-only, as datadesk_reader, under the statement timeout;
// rows through a cursor, the true total counted.
import { runSql } from '../execute.js';
import type { SqlNodeName, SqlState } from '../state.js';

export async function runNode(state: SqlState): Promise<SqlNodeName> {
  state.progress?.('Running the query');
  state.result = await runSql(state.deps.pool, state.sql!, state.deps.statementTimeoutMs);
  return 'synthesize';
}
