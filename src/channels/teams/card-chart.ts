// A chart as Teams draws it in a card (learn.microsoft.com: charts in Adaptive
// Cards): Chart.VerticalBar, Chart.HorizontalBar, Chart.VerticalBar.Grouped and
// Chart.Line, with the PNG as the element's fallback for a client that has no
// charts. Teams draws them from the numbers, so no image has to be hosted or
// fit in the card. The kind is the chart spec's (charts/choose-chart.ts): a
// time series is a line; counts over categories (crime types, places, areas,
// blocks) are bars, lying down when their names are long or many, so that
// each name can be read; two values per category are grouped bars.
import type { ChartSpec } from '../../core/answer.js';

type Element = Record<string, unknown>;

/** Points a card's line keeps a series to: a backtest's 480 days become a readable, small line. */
const CARD_LINE_POINTS = 60;
/** Groups a card's grouped-bar chart shows at most (more are a table's job, and the PNG's). */
const CARD_BARS = 30;
/** Bars a card's bar chart shows at most: lying down, one name a line, as many as a chart spec has (choose-chart keeps 50). */
const CARD_HORIZONTAL_BARS = 50;
/** Category names longer than this ("RESIDENCE - PORCH / HALLWAY", "001XX N STATE ST") read only across: bars lie down. */
const UPRIGHT_LABEL_CHARS = 12;
/** More categories than this lie down too: upright, their names would be slanted and cut. */
const UPRIGHT_BARS = 12;

/** Every `step`-th point and the last: a long series thinned to at most `max` points, its end kept. */
function thinned<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const step = Math.ceil(points.length / max);
  const kept = points.filter((_, i) => i % step === 0);
  if (kept.at(-1) !== points.at(-1)) kept.push(points.at(-1)!);
  return kept;
}

const axes = (spec: ChartSpec) => ({
  ...(spec.xLabel ? { xAxisTitle: spec.xLabel } : {}),
  ...(spec.yLabel ? { yAxisTitle: spec.yLabel } : {}),
});

/**
 * The spec as a Teams chart element, or undefined when Teams has no chart that says the same: a heat map, or bars
 * with a gap. A second axis (a backtest's drawdown under its equity) is left to the PNG fallback's fuller drawing:
 * the card's line has the left-axis series.
 */
export function teamsChartElement(spec: ChartSpec, fallback?: Element): Element | undefined {
  const withFallback = (e: Element): Element => (fallback ? { ...e, fallback } : e);
  const left = spec.series.filter((s) => s.axis !== 'right');
  if (!left.length || !spec.labels.length) return undefined;
  switch (spec.kind) {
    case 'bar': {
      const [s] = left;
      if (left.length !== 1 || spec.labels.length > CARD_HORIZONTAL_BARS || s.values.some((v) => v === null)) return undefined;
      // Teams' bar charts take the same points (x the category, y its value), upright or lying down
      const lying = spec.labels.length > UPRIGHT_BARS || spec.labels.some((l) => l.length > UPRIGHT_LABEL_CHARS);
      return withFallback({
        type: lying ? 'Chart.HorizontalBar' : 'Chart.VerticalBar',
        title: spec.title,
        ...axes(spec),
        data: spec.labels.map((x, i) => ({ x, y: s.values[i] })),
      });
    }
    case 'grouped-bar': {
      if (spec.labels.length > CARD_BARS || left.some((s) => s.values.some((v) => v === null))) return undefined;
      return withFallback({
        type: 'Chart.VerticalBar.Grouped',
        title: spec.title,
        ...axes(spec),
        data: left.map((s) => ({ legend: s.name, values: spec.labels.map((x, i) => ({ x, y: s.values[i] })) })),
      });
    }
    case 'line':
      return withFallback({
        type: 'Chart.Line',
        title: spec.title,
        ...axes(spec),
        data: left.map((s) => ({
          legend: s.name,
          values: thinned(
            spec.labels.map((x, i) => ({ x, y: s.values[i] })).filter((p): p is { x: string; y: number } => p.y !== null),
            CARD_LINE_POINTS,
          ),
        })),
      });
    case 'heatmap':
      return undefined;
  }
}
