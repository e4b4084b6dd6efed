// SQL as the playground shows it: laid out by sql-formatter (PostgreSQL
// dialect), with keywords and names left as written (upper-casing would turn
// the column `year` into YEAR). A query the formatter cannot read is shown as it is.
import { format } from 'sql-formatter';

export function formatSql(sql: string): string {
  try {
    return format(sql, { language: 'postgresql', keywordCase: 'preserve', tabWidth: 2 });
  } catch {
    return sql;
  }
}
