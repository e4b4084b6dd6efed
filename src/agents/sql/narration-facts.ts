// The facts of a free-SQL result that was longer than the rows kept: per
// numeric column its total, highest and lowest with their labels, computed by
// the database over every row of the query (result-facts.ts tells them). The
// narration never states an extreme of the rows kept as if it were the
// result's.
import type pg from 'pg';
import { withReadOnly } from '../../db/read-only.js';
import type { QueryResult } from '../../core/result-shape.js';

/** A numeric column's facts over every row of a result. */
export interface ColumnFacts {
  column: number;
  total: number;
  highest: { value: number; label: string };
  lowest: { value: number; label: string };
}

const isNumericColumn = (r: QueryResult, c: number) => {
  const numeric = r.rows.filter((row) => typeof row[c] === 'number');
  return numeric.length > 0 && numeric.length >= r.rows.length / 2;
};

/**
 * Totals, highest and lowest of each numeric column over all rows of the query, not the rows kept: the
 * query (already checked, run on the same read-only pool) wrapped once, its columns taken by position.
 */
export async function wholeResultFacts(pool: pg.Pool, sql: string, r: QueryResult, statementTimeoutMs: number): Promise<ColumnFacts[]> {
  const numeric = r.columns.map((_, c) => c).filter((c) => isNumericColumn(r, c));
  if (!numeric.length) return [];
  const cols = r.columns.map((_, c) => `c${c}`);
  const labelCol = r.columns.findIndex((_, c) => r.rows.some((row) => typeof row[c] === 'string'));
  const label = labelCol >= 0 ? `c${labelCol}::text` : `NULL::text`;
  // ties go to the first label, so the same result always names the same row
  const tieBreak = labelCol >= 0 ? `, c${labelCol}` : '';
  const parts = numeric.flatMap((c) => [
    `sum(c${c})::float8 AS sum_${c}`,
    `(SELECT ARRAY[c${c}::text, ${label}] FROM r ORDER BY c${c} DESC NULLS LAST${tieBreak} LIMIT 1) AS hi_${c}`,
    `(SELECT ARRAY[c${c}::text, ${label}] FROM r WHERE c${c} IS NOT NULL ORDER BY c${c} ASC${tieBreak} LIMIT 1) AS lo_${c}`,
  ]);
  const wrapped = `WITH r(${cols.join(', ')}) AS (\n${sql}\n) SELECT ${parts.join(', ')} FROM r`;
  const { rows } = await withReadOnly(pool, { statementTimeoutMs, watchdog: true }, (client) => client.query(wrapped));
  const row = rows[0] as Record<string, unknown>;
  return numeric.map((c) => {
    const hi = (row[`hi_${c}`] as (string | null)[] | null) ?? [null, null];
    const lo = (row[`lo_${c}`] as (string | null)[] | null) ?? [null, null];
    return {
      column: c,
      total: Number(row[`sum_${c}`] ?? 0),
      highest: { value: Number(hi[0]), label: hi[1] ?? '' },
      lowest: { value: Number(lo[0]), label: lo[1] ?? '' },
    };
  });
}
