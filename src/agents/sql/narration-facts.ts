// What the narration prompt shows of a result. Small results go in whole. A
// result too long for the prompt is summarised: the row count, per numeric
// column its total and its minimum and maximum with their labels (computed by
// the database over every row when the result was longer than the rows kept:
// wholeResultFacts), and the first and last rows, and the prompt says exactly
// which rows it shows.
// (It used to say "Rows (234 of 234)" above only 20 of them, and a model named
// a wrong maximum that the number check could not catch.)
import type pg from 'pg';
import type { Cell } from '../../core/answer.js';
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

/** Rows sent whole up to this many. */
const WHOLE_ROWS = 50;
const EDGE_ROWS = 10;

const line = (row: Cell[]) => row.map((c) => (c === null ? 'null' : String(c))).join(' | ');

export function narrationFacts(r: QueryResult, whole?: ColumnFacts[]): string {
  const total = r.rowCount;
  if (r.rows.length <= WHOLE_ROWS && !r.truncated) return `<<<ROWS (all ${total})\n${r.rows.map(line).join('\n')}\nROWS>>>`;
  const label = (row: Cell[]) => row.filter((c) => typeof c === 'string').join(', ') || `row ${r.rows.indexOf(row) + 1}`;
  const first = r.rows.slice(0, EDGE_ROWS).map(line).join('\n');
  const last = r.rows.slice(-EDGE_ROWS).map(line).join('\n');
  const edges = `<<<ROWS (the first ${EDGE_ROWS} of ${total})\n${first}\nROWS>>>\n<<<ROWS (the last ${EDGE_ROWS} shown)\n${last}\nROWS>>>`;
  if (r.truncated && whole) {
    const facts = [`The result has ${total} rows; the facts below are computed over all of them.`];
    for (const f of whole)
      facts.push(
        `${r.columns[f.column]}: total ${f.total}; highest ${f.highest.value} (${f.highest.label}); lowest ${f.lowest.value} (${f.lowest.label})`,
      );
    return `${facts.join('\n')}\n${edges}`;
  }
  const facts: string[] = [
    `The result has ${total} rows${r.truncated ? `; the facts below are computed over the first ${r.rows.length}` : ''}.`,
  ];
  r.columns.forEach((name, c) => {
    const numeric = r.rows.filter((row) => typeof row[c] === 'number');
    if (!numeric.length || numeric.length < r.rows.length / 2) return;
    let min = numeric[0];
    let max = numeric[0];
    let sum = 0;
    for (const row of numeric) {
      const v = row[c] as number;
      sum += v;
      if (v < (min[c] as number)) min = row;
      if (v > (max[c] as number)) max = row;
    }
    facts.push(`${name}: total ${sum}; highest ${max[c]} (${label(max)}); lowest ${min[c]} (${label(min)})`);
  });
  return `${facts.join('\n')}\n${edges}`;
}
