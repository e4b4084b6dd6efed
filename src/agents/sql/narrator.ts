// The deterministic narrator: the common result shapes in plain English, every
// number straight from the rows. Used when no LLM is configured, when the LLM
// fails, and when an LLM narration fails the number check.
import type { Cell } from '../../core/answer.js';
import { fmtNumber } from '../../core/format.js';
import type { QueryResult } from './execute.js';

export type Shape = 'empty' | 'single' | 'series' | 'ranking' | 'comparison' | 'table';

export const TIME_COLUMN = /^(year|month|day|date|week|hour|iso_weekday|weekday|quarter|time|period)$/i;

export const humanize = (column: string) => column.replace(/_pct$/, ' (%)').replace(/_/g, ' ');

export function fmtCell(v: Cell, column = ''): string {
  // years, hours and months are labels, not quantities: no thousands separator
  if (typeof v === 'number' && TIME_COLUMN.test(column)) return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : fmtNumber(v, Math.abs(v) < 10 ? 2 : 1);
  if (v === null) return 'none';
  return String(v);
}

const isNum = (v: Cell) => typeof v === 'number';

export function shapeOf(r: QueryResult): Shape {
  if (r.rowCount === 0) return 'empty';
  if (r.rowCount === 1) return 'single';
  const numericCols = r.columns.map((_, i) => r.rows.every((row) => row[i] === null || isNum(row[i])));
  const valueCols = numericCols.filter(Boolean).length;
  if (valueCols === 0) return 'table';
  if (TIME_COLUMN.test(r.columns[0]) && numericCols.slice(1).some(Boolean)) return 'series';
  if (!numericCols[0] && numericCols.slice(1).some(Boolean)) return r.rowCount === 2 ? 'comparison' : 'ranking';
  return 'table';
}

function firstValueColumn(r: QueryResult): number {
  const i = r.columns.findIndex((_, c) => c > 0 && r.rows.every((row) => row[c] === null || isNum(row[c])));
  return i < 0 ? 1 : i;
}

export function narrate(r: QueryResult): string {
  const shape = shapeOf(r);
  const more = r.truncated ? ` (${r.rowCount.toLocaleString('en-US')} rows in all; this reads the first ${r.rows.length})` : '';
  switch (shape) {
    case 'empty':
      return 'No rows matched the question.';
    case 'single':
      return r.columns.map((c, i) => `${humanize(c)}: ${fmtCell(r.rows[0][i], c)}`).join('; ').replace(/^./, (ch) => ch.toUpperCase()) + '.';
    case 'series': {
      const v = firstValueColumn(r);
      const label = humanize(r.columns[v]);
      const points = r.rows.filter((row) => isNum(row[v]));
      const first = points[0];
      const last = points[points.length - 1];
      const max = points.reduce((a, b) => ((b[v] as number) > (a[v] as number) ? b : a));
      const min = points.reduce((a, b) => ((b[v] as number) < (a[v] as number) ? b : a));
      const change = (first[v] as number) !== 0 ? ` (${fmtNumber((((last[v] as number) - (first[v] as number)) / (first[v] as number)) * 100, 1)}%)` : '';
      return (
        `From ${r.columns[0]} ${fmtCell(first[0], r.columns[0])} to ${fmtCell(last[0], r.columns[0])}, ${label} went from ${fmtCell(first[v])} to ${fmtCell(last[v])}${change}. ` +
        `Highest: ${fmtCell(max[v])} in ${fmtCell(max[0], r.columns[0])}; lowest: ${fmtCell(min[v])} in ${fmtCell(min[0], r.columns[0])}.${more}`
      );
    }
    case 'comparison': {
      const v = firstValueColumn(r);
      const [a, b] = r.rows;
      const diff = (a[v] as number) - (b[v] as number);
      return `${fmtCell(a[0])}: ${fmtCell(a[v])} ${humanize(r.columns[v])}; ${fmtCell(b[0])}: ${fmtCell(b[v])} (a difference of ${fmtCell(Math.abs(diff))}).`;
    }
    case 'ranking': {
      const v = firstValueColumn(r);
      const top = r.rows.slice(0, 3);
      const rest = top.slice(1).map((row) => `${fmtCell(row[0])} (${fmtCell(row[v])})`);
      return (
        `${fmtCell(top[0][0])} comes first with ${fmtCell(top[0][v])} ${humanize(r.columns[v])}` +
        `${rest.length ? `, followed by ${rest.join(' and ')}` : ''}.${more}`
      );
    }
    case 'table':
      return `The query returned ${r.rowCount.toLocaleString('en-US')} row${r.rowCount === 1 ? '' : 's'}${more}.`;
  }
}

/** Numbers as written in a text: 12,345 / 3.5 / -2% / 1.2e3. */
export function numbersIn(text: string): number[] {
  return (text.match(/-?\d[\d,]*(\.\d+)?/g) ?? [])
    .map((s) => Number(s.replace(/,/g, '')))
    .filter((n) => Number.isFinite(n));
}

/**
 * The number check of an LLM narration: every number in it must come from the
 * rows, or from a simple derivation of them (a sum, a difference, a percentage
 * or percentage change), or from the question; after rounding as written.
 */
export function uncheckedNumbers(narration: string, r: QueryResult, question: string): number[] {
  const values = r.rows.flat().filter(isNum) as number[];
  const allowed: number[] = [...values, r.rowCount, r.rows.length, ...numbersIn(question)];
  for (let c = 0; c < r.columns.length; c++) {
    const col = r.rows.map((row) => row[c]).filter(isNum) as number[];
    if (!col.length) continue;
    const sum = col.reduce((a, b) => a + b, 0);
    allowed.push(sum, sum / col.length);
    for (const a of col) {
      allowed.push((a / sum) * 100);
      for (const b of col) {
        allowed.push(a - b, Math.abs(a - b));
        if (b !== 0) allowed.push((a / b - 1) * 100, Math.abs((a / b - 1) * 100), (a / b) * 100, a / b);
      }
    }
  }
  const matches = (n: number) =>
    allowed.some((a) => {
      if (a === n) return true;
      // written with fewer decimals: 12.346 -> "12.35", "12.3", "12"; large numbers as "1.2" million are not matched
      for (const d of [0, 1, 2, 3]) if (Math.abs(Math.round(a * 10 ** d) / 10 ** d - n) < 1e-9) return true;
      return false;
    });
  return numbersIn(narration).filter((n) => !matches(n) && !(Number.isInteger(n) && n >= 1 && n <= 10 && narration.includes(`top ${n}`)));
}
