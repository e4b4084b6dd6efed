// Whether a query orders its own rows (a top-level ORDER BY, also after a
// UNION): only then may a narration say which row "comes first". Rows in an
// order nobody asked for are PostgreSQL's to shuffle.
import { parseSql } from './parse-sql.js';

export async function ordersRows(sql: string): Promise<boolean> {
  try {
    const tree = (await parseSql(sql)) as { stmts?: { stmt?: { SelectStmt?: { sortClause?: unknown[] } } }[] };
    return Boolean(tree.stmts?.[0]?.stmt?.SelectStmt?.sortClause?.length);
  } catch {
    return false;
  }
}
