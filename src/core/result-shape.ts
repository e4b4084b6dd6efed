// A query's result as the answer parts read it (the narrator, the chart
// chooser, the evaluators), and its shape: one number, a time series, a
// ranking, a comparison of two, a table. Here, in core, so that charts and
// channels read results without importing the SQL agent.
import type { Cell } from './answer.js';

export interface QueryResult {
  columns: string[];
  rows: Cell[][];
  rowCount: number;
  truncated: boolean;
}

export type Shape = 'empty' | 'single' | 'series' | 'ranking' | 'comparison' | 'table';

export const TIME_COLUMN = /^(year|month|day|date|week|hour|iso_weekday|weekday|quarter|time|period)$/i;

/** A column name as words: "arrest_pct" -> "arrest (%)". */
export const humanize = (column: string) => column.replace(/_pct$/, ' (%)').replace(/_/g, ' ');

export const isNum = (v: Cell) => typeof v === 'number';

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
