// Node 2, schema: the allowed tables as introspected (cached by the agent).
import type { SqlNodeName, SqlState } from '../state.js';

export async function schemaNode(state: SqlState): Promise<SqlNodeName> {
  state.progress?.('Reading the schema');
  state.schema = await state.loadSchema();
  return 'generate';
}
