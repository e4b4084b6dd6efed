// A chart from a result's shape: time series -> line, category counts -> bar,
// two value columns -> grouped bar, a single value -> none.
import type { ChartSpec } from '../core/answer.js';
import type { QueryResult } from '../core/result-shape.js';
import { humanize, shapeOf } from '../core/result-shape.js';

export function chooseChart(r: QueryResult, title: string): ChartSpec | undefined {
  const shape = shapeOf(r);
  if (shape !== 'series' && shape !== 'ranking' && shape !== 'comparison') return undefined;
  const valueCols = r.columns
    .map((c, i) => ({ c, i }))
    .filter(({ i }) => i > 0 && r.rows.every((row) => row[i] === null || typeof row[i] === 'number'))
    // counts and rates on one axis read badly: keep the first two value columns at most
    .slice(0, 2);
  if (!valueCols.length) return undefined;
  const rows = r.rows.slice(0, 50);
  return {
    kind: shape === 'series' ? 'line' : valueCols.length > 1 ? 'grouped-bar' : 'bar',
    title,
    labels: rows.map((row) => String(row[0])),
    series: valueCols.map(({ c, i }) => ({
      name: humanize(c),
      values: rows.map((row) => row[i] as number | null),
      axis: 'left' as const,
      fill: false,
    })),
    yLabel: valueCols.length === 1 ? humanize(valueCols[0].c) : undefined,
  };
}
