// What can be said of a free-SQL result, as facts with ids, each already a
// sentence of ours with its numbers from the database: the row count, per
// value column its total, highest and lowest (over every row of the query,
// computed by the database when the result is longer than the rows kept:
// narration-facts.ts), the change along a time axis, the order of a ranking
// (only when the query itself asked for an order: rows in no asked order are
// never read as a ranking), the difference between two rows.
//
// A model never writes the narration: it only picks which of these facts
// answer the question and in what order (synthesize-node.ts), so every
// sentence and number a person reads is ours. With no model, or when its pick
// is unusable, defaultFacts() picks by the result's shape.
import type { Cell } from '../../core/answer.js';
import { fmtNumber } from '../../core/format.js';
import { humanize, isNum, shapeOf, TIME_COLUMN, type QueryResult } from '../../core/result-shape.js';
import { shownValue } from '../../core/inert-text.js';
import type { ColumnFacts } from './narration-facts.js';

export interface ResultFact {
  id: string;
  sentence: string;
}

const integerFmt = new Intl.NumberFormat('en-US');

function fmtCell(v: Cell, column = ''): string {
  // years, hours and months are labels, not quantities: no thousands separator
  if (typeof v === 'number' && TIME_COLUMN.test(column)) return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? integerFmt.format(v) : fmtNumber(v, Math.abs(v) < 10 ? 2 : 1);
  if (v === null) return 'none';
  return shownValue(String(v));
}

/** Columns whose sum means nothing (a rate, an average, a share). */
const NOT_ADDITIVE = /(pct|percent|rate|ratio|share|avg|average|mean|median|per_|_per|p\d\d)/i;

const sentence = (s: string) => s.replace(/^./, (c) => c.toUpperCase());

/** The columns that are values (numbers in every row), and the first that is a label. */
function columnsOf(r: QueryResult) {
  const numeric = r.columns.map((_, c) => r.rows.every((row) => row[c] === null || isNum(row[c])) && r.rows.some((row) => isNum(row[c])));
  const series = TIME_COLUMN.test(r.columns[0]) && numeric[0];
  const values = r.columns.map((_, c) => c).filter((c) => numeric[c] && !(series && c === 0));
  const label = series ? 0 : r.columns.findIndex((_, c) => !numeric[c]);
  return { values, label, series };
}

/** A row's label as a person reads it: its label column, or its place in the result. */
function labelOf(r: QueryResult, row: Cell[], label: number): string {
  if (label >= 0) return fmtCell(row[label], r.columns[label]);
  return `row ${r.rows.indexOf(row) + 1}`;
}

/** Totals and extremes of one value column over the rows kept (whole results only). */
function keptFacts(r: QueryResult, c: number, label: number): ColumnFacts | undefined {
  const rows = r.rows.filter((row) => isNum(row[c]));
  if (!rows.length) return undefined;
  let hi = rows[0];
  let lo = rows[0];
  let total = 0;
  for (const row of rows) {
    const v = row[c] as number;
    total += v;
    if (v > (hi[c] as number)) hi = row;
    if (v < (lo[c] as number)) lo = row;
  }
  return {
    column: c,
    total,
    highest: { value: hi[c] as number, label: labelOf(r, hi, label) },
    lowest: { value: lo[c] as number, label: labelOf(r, lo, label) },
  };
}

/**
 * Every fact the result allows. `whole`: the database's facts over every row (when the result was cut);
 * `ordered`: the query itself orders its rows (a top-level ORDER BY).
 */
export function resultFacts(r: QueryResult, opts: { whole?: ColumnFacts[]; ordered: boolean }): ResultFact[] {
  const shape = shapeOf(r);
  if (shape === 'empty') return [{ id: 'none', sentence: 'No rows matched the question.' }];
  if (shape === 'single') {
    const row = r.rows[0];
    return [{ id: 'row', sentence: sentence(r.columns.map((c, i) => `${humanize(c)}: ${fmtCell(row[i], c)}`).join('; ')) + '.' }];
  }
  const count = integerFmt.format(r.rowCount);
  const facts: ResultFact[] = [{ id: 'rows', sentence: `The query returned ${count} rows.` }];
  const { values, label, series } = columnsOf(r);
  // over every row: the database's facts when the result was cut, else the rows themselves (they are all of them)
  const scope = r.truncated && !opts.whole ? ` among the first ${integerFmt.format(r.rows.length)} of ${count} rows` : '';
  for (const c of values) {
    const f = opts.whole?.find((w) => w.column === c) ?? keptFacts(r, c, label);
    if (!f) continue;
    const name = humanize(r.columns[c]);
    const at = (l: string) => (l ? (series ? ` in ${l}` : ` (${shownValue(l)})`) : '');
    if (Number.isInteger(f.total) && !NOT_ADDITIVE.test(r.columns[c]))
      facts.push({ id: `total-${c}`, sentence: sentence(`${name} in all${scope}: ${fmtCell(f.total)}.`) });
    facts.push({ id: `highest-${c}`, sentence: `Highest ${name}${scope}: ${fmtCell(f.highest.value)}${at(f.highest.label)}.` });
    facts.push({ id: `lowest-${c}`, sentence: `Lowest ${name}${scope}: ${fmtCell(f.lowest.value)}${at(f.lowest.label)}.` });
  }
  const v = values[0];
  if (v === undefined || r.truncated) return facts;
  const name = humanize(r.columns[v]);
  const points = r.rows.filter((row) => isNum(row[v]));
  if (series && points.length >= 2) {
    const [first, last] = [points[0], points[points.length - 1]];
    const a = first[v] as number;
    const b = last[v] as number;
    const change = a !== 0 ? ` (${fmtNumber(((b - a) / a) * 100, 1)}%)` : '';
    facts.push({
      id: `change-${v}`,
      sentence: `From ${r.columns[0]} ${fmtCell(first[0], r.columns[0])} to ${fmtCell(last[0], r.columns[0])}, ${name} went from ${fmtCell(a)} to ${fmtCell(b)}${change}.`,
    });
  }
  if (!series && label >= 0 && r.rows.length === 2) {
    const [a, b] = r.rows;
    if (isNum(a[v]) && isNum(b[v]))
      facts.push({
        id: `difference-${v}`,
        sentence: `${labelOf(r, a, label)}: ${fmtCell(a[v])} ${name}; ${labelOf(r, b, label)}: ${fmtCell(b[v])} (a difference of ${fmtCell(Math.abs((a[v] as number) - (b[v] as number)))}).`,
      });
  }
  // a ranking is said only of rows the query ordered, from the highest down
  const descending = points.every((row, i) => i === 0 || (row[v] as number) <= (points[i - 1][v] as number));
  if (!series && opts.ordered && descending && label >= 0 && points.length >= 3) {
    const rest = points.slice(1, 3).map((row) => `${labelOf(r, row, label)} (${fmtCell(row[v])})`);
    facts.push({
      id: `ranking-${v}`,
      sentence: `${labelOf(r, points[0], label)} comes first with ${fmtCell(points[0][v])} ${name}, followed by ${rest.join(' and ')}.`,
    });
  }
  return facts;
}

/** The facts told when no model picks: by the result's shape. */
export function defaultFacts(facts: ResultFact[]): ResultFact[] {
  const has = (prefix: string) => facts.find((f) => f.id.startsWith(prefix));
  const lead = has('change-') ?? has('difference-') ?? has('ranking-');
  if (facts.length === 1) return facts;
  const v = (lead?.id ?? facts.find((f) => f.id.startsWith('highest-'))?.id ?? '').split('-')[1];
  const extremes = facts.filter((f) => f.id === `highest-${v}` || f.id === `lowest-${v}`);
  if (lead?.id.startsWith('difference-')) return [lead];
  if (lead) return [lead, ...(lead.id.startsWith('change-') ? extremes : [])];
  return extremes.length ? [facts[0], ...extremes] : [facts[0]];
}

/** The narration of the picked facts: their sentences, in the order picked. */
export const tellFacts = (facts: ResultFact[]) => facts.map((f) => f.sentence).join(' ');
