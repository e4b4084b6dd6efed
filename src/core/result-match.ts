// Whether two query results are the same answer, as a person reads them: the
// same row count and rows, strictly (the same columns) or relaxed (column
// names and order ignored, numbers within 1e-6 relative), in order when the
// gold orders its rows. The benchmarks judge answers with it, and the agent
// checks a model's restated question against its query with it.
import type { Cell } from './answer.js';
import type { QueryResult } from './result-shape.js';

const TOLERANCE = 1e-6;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A month of the year by its name ("March", "Mar") is its number, 3: a person reads either the same. */
function monthNumber(c: Cell): Cell {
  if (typeof c !== 'string') return c;
  const name = c.trim().toLowerCase();
  const k = MONTHS.findIndex((m) => m === name || (name.length === 3 && m.startsWith(name)));
  return k < 0 ? c : k + 1;
}

function sameCell(x: Cell, y: Cell): boolean {
  const a = monthNumber(x);
  const b = monthNumber(y);
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
  return String(a) === String(b);
}

/** A row as a key for comparing rows in any order: cells compared as sameCell does (a number and its text alike). */
const rowKey = (row: Cell[]) =>
  JSON.stringify(
    row.map(monthNumber).map((c) => (typeof c === 'number' ? String(Math.round(c * 1e6) / 1e6) : c === null ? null : String(c))),
  );

/**
 * Whether the gold query's rows are in an order a person asked for: it orders them (ORDER BY outside a window)
 * and not only by its first column, the group's own key ("GROUP BY 1 ORDER BY 1", "ORDER BY district" after
 * "by district"), unless it keeps the first N. "by district" shown with the most first is the same answer as
 * the same rows in district order; "top 5" or "fewest first" is not.
 */
function ordersRows(goldSql: string): boolean {
  const sql = goldSql.replace(/over\s*\([^)]*\)/gi, '');
  const orderBy = /\border\s+by\s+((?:(?!\border\s+by\b)[\s\S])*)$/i.exec(sql);
  if (!orderBy) return false;
  if (/\blimit\b/i.test(orderBy[1])) return true;
  const first = /^\s*select\s+(?:distinct\s+)?((?:(?!\bfrom\b)[^,])+)/i.exec(sql)?.[1].trim().toLowerCase() ?? '';
  const alias = /\bas\s+"?(\w+)"?$/.exec(first)?.[1];
  const expression = first.replace(/\s+as\s+"?\w+"?$/, '');
  const keys = orderBy[1].split(',').map((k) =>
    k
      .trim()
      .replace(/;$/, '')
      .replace(/\s+asc$/i, '')
      .trim()
      .toLowerCase(),
  );
  return !keys.every((k) => k === '1' || k === alias || k === expression);
}

function sameRows(gold: Cell[][], pred: Cell[][], ordered: boolean): boolean {
  if (gold.length !== pred.length) return false;
  if (ordered) return gold.every((row, i) => row.length === pred[i].length && row.every((c, j) => sameCell(c, pred[i][j])));
  const a = gold.map(rowKey).sort();
  const b = pred.map(rowKey).sort();
  return a.every((k, i) => k === b[i]);
}

export function strictMatch(gold: QueryResult, pred: QueryResult, ordered: boolean): boolean {
  return gold.columns.length === pred.columns.length && sameRows(gold.rows, pred.rows, ordered);
}

/** Every gold column appears among the predicted columns (names ignored), the rows agree. */
export function relaxedMatch(gold: QueryResult, pred: QueryResult, ordered: boolean): boolean {
  if (gold.rows.length !== pred.rows.length) return false;
  const column = (r: QueryResult, j: number) => r.rows.map((row) => row[j]);
  const used = new Set<number>();
  const mapping: number[] = [];
  for (let g = 0; g < gold.columns.length; g++) {
    const gc = column(gold, g);
    const match = pred.columns.findIndex((_, p) => {
      if (used.has(p)) return false;
      const pc = column(pred, p);
      if (ordered) return gc.every((c, i) => sameCell(c, pc[i]));
      const a = gc.map((c) => rowKey([c])).sort();
      const b = pc.map((c) => rowKey([c])).sort();
      return a.every((k, i) => k === b[i]);
    });
    if (match < 0) return false;
    used.add(match);
    mapping.push(match);
  }
  // the chosen columns must agree row by row too, not just column by column
  const projected = pred.rows.map((row) => mapping.map((p) => row[p]));
  return sameRows(gold.rows, projected, ordered);
}

/**
 * A result against the gold query's: the same row count, and the rows kept (a result keeps up to 1,000)
 * equal to the gold's first ones: strictly (the same columns), or relaxed (names and column order
 * ignored). In order when the gold query orders its rows by more than its group key (ordersRows).
 */
export function scoreResult(
  goldSql: string,
  gold: QueryResult,
  pred: QueryResult,
): { strict: boolean; relaxed: boolean; failure?: string } {
  const seenGold = { ...gold, rows: gold.rows.slice(0, pred.rows.length) };
  const ordered = ordersRows(goldSql);
  const sameCount = pred.rowCount === gold.rowCount;
  const strict = sameCount && strictMatch(seenGold, pred, ordered);
  const relaxed = strict || (sameCount && relaxedMatch(seenGold, pred, ordered));
  if (relaxed) return { strict, relaxed };
  const failure =
    pred.rowCount === 0 && gold.rowCount > 0
      ? 'empty result'
      : pred.rowCount < gold.rowCount
        ? 'missing rows'
        : pred.rowCount > gold.rowCount
          ? 'extra rows'
          : pred.columns.length < gold.columns.length
            ? 'missing columns'
            : 'wrong values';
  return { strict, relaxed, failure };
}
