// What the narration prompt shows of a result. Small results go in whole. A
// result too long for the prompt is summarised by code: the row count, per
// numeric column its total and its minimum and maximum with their labels, and
// the first and last rows, and the prompt says exactly which rows it shows.
// (It used to say "Rows (234 of 234)" above only 20 of them, and a model named
// a wrong maximum that the number check could not catch.)
import type { Cell } from '../../core/answer.js';
import type { QueryResult } from './execute.js';

/** Rows sent whole up to this many. */
export const WHOLE_ROWS = 50;
const EDGE_ROWS = 10;

const line = (row: Cell[]) => row.map((c) => (c === null ? 'null' : String(c))).join(' | ');

export function narrationFacts(r: QueryResult): string {
  const total = r.rowCount;
  if (r.rows.length <= WHOLE_ROWS && !r.truncated) return `<<<ROWS (all ${total})\n${r.rows.map(line).join('\n')}\nROWS>>>`;
  const label = (row: Cell[]) => row.filter((c) => typeof c === 'string').join(', ') || `row ${r.rows.indexOf(row) + 1}`;
  const facts: string[] = [`The result has ${total} rows${r.truncated ? `; the facts below are computed over the first ${r.rows.length}` : ''}.`];
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
  const first = r.rows.slice(0, EDGE_ROWS).map(line).join('\n');
  const last = r.rows.slice(-EDGE_ROWS).map(line).join('\n');
  return `${facts.join('\n')}\n<<<ROWS (the first ${EDGE_ROWS} of ${total})\n${first}\nROWS>>>\n<<<ROWS (the last ${EDGE_ROWS} shown)\n${last}\nROWS>>>`;
}
