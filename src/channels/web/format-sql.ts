// SQL as the playground shows it: laid out by sql-formatter (PostgreSQL
// dialect), with keywords and names left as written (upper-casing would turn
// the column `year` into YEAR). A query the formatter cannot read is shown as it is.
// SQL already laid out by its writer (our plan compiler writes a clause a line)
// is shown as written: sql-formatter takes about 2 ms of CPU a query, the
// largest single cost of sending an answer to the page (issue 35's profile).
import { format } from 'sql-formatter';

/** Lines a query laid out by hand or by our compiler keeps to (a generate_series line of ours is 130); longer is a query left on one line. */
const LAID_OUT_LINE = 200;

const laidOut = (sql: string) => sql.includes('\n') && sql.split('\n').every((line) => line.length <= LAID_OUT_LINE);

export function formatSql(sql: string): string {
  if (laidOut(sql)) return sql;
  try {
    return format(sql, { language: 'postgresql', keywordCase: 'preserve', tabWidth: 2 });
  } catch {
    return sql;
  }
}
