// A channel-neutral chart spec -> a Chart.js v4 configuration. The same config
// renders locally to PNG or through a QuickChart server.
import type { ChartConfiguration } from 'chart.js';
import type { ChartSpec } from '../core/answer.js';

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const DRAWDOWN = '#d62728';

/**
 * 'full': files, Slack, the playground. 'card': a Teams card's inline image,
 * small and drawn in few colors (see CARD_INKS and indexed-png.ts). 'phone':
 * the full style laid out for a phone's width (the playground on a phone), so
 * its labels are read at their size instead of shrunk with a wide image.
 */
export type ChartStyle = 'full' | 'card' | 'phone';

/** The card style's text and grid colors (Chart.js' defaults are translucent: they would blend into many). */
const CARD_INKS = { text: '#333333', grid: '#dddddd' };

/**
 * A heat map's colors, worst to best: viridis in 7 steps (ordered in lightness, so it reads in grey and with
 * color blindness), each with the ink its cell's value is written in. An empty cell (n/a) is light grey.
 */
const HEAT_BINS = [
  { fill: '#440154', ink: '#ffffff' },
  { fill: '#443983', ink: '#ffffff' },
  { fill: '#31688e', ink: '#ffffff' },
  { fill: '#21918c', ink: '#ffffff' },
  { fill: '#35b779', ink: '#000000' },
  { fill: '#90d743', ink: '#000000' },
  { fill: '#fde725', ink: '#000000' },
];
const HEAT_EMPTY = { fill: '#eeeeee', ink: '#333333' };

interface HeatCell {
  x: string;
  y: string;
  v: number | null;
  /** the value as written in the cell */
  text: string;
  fill: string;
  ink: string;
}

/** A heat map's cells, each with its color: the values' range cut in 7 equal steps, brighter is better. */
function heatCells(spec: ChartSpec): HeatCell[] {
  const values = spec.series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const cells: HeatCell[] = [];
  for (const row of spec.series) {
    row.values.forEach((v, i) => {
      const x = spec.labels[i];
      if (v === null) return cells.push({ x, y: row.name, v, text: 'n/a', ...HEAT_EMPTY });
      // where the value sits from worst (0) to best (1); one value everywhere is the middle color
      const t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      const bin = HEAT_BINS[Math.min(HEAT_BINS.length - 1, Math.floor((spec.best === 'low' ? 1 - t : t) * HEAT_BINS.length))];
      cells.push({ x, y: row.name, v, text: `${v.toFixed(2)}${spec.valueSuffix ?? ''}`, ...bin });
    });
  }
  return cells;
}

/** Every solid color a card chart draws with, over white: text, grid, and each series' line, bar or fill. */
export function chartInks(spec: ChartSpec): string[] {
  const inks = [CARD_INKS.text, CARD_INKS.grid];
  if (spec.kind === 'heatmap') return [...new Set([...inks, ...heatCells(spec).flatMap((c) => [c.fill, c.ink])])];
  spec.series.forEach((s, i) => {
    const color = s.axis === 'right' ? DRAWDOWN : PALETTE[i % PALETTE.length];
    inks.push(color);
    if (s.fill) inks.push(`${color}33`);
  });
  return [...new Set(inks)];
}

/** A chart drawn once at a set size (no resizing, no animation), at 1 px a pixel on a card. */
const fixedFrame = (card: boolean) => ({ responsive: false, animation: false, ...(card ? { devicePixelRatio: 1 } : {}) });
const titleOf = (spec: ChartSpec, card: boolean, ink: { color?: string }) => ({
  display: true,
  text: spec.title,
  font: { size: card ? 14 : 16 },
  ...ink,
});

export function toChartJsConfig(spec: ChartSpec, style: ChartStyle = 'full'): ChartConfiguration {
  if (spec.kind === 'heatmap') return heatmapConfig(spec, style);
  const card = style === 'card';
  const ink = card ? { color: CARD_INKS.text } : {};
  const small = card ? { font: { size: 11 } } : {};
  const grid = card ? { grid: { color: CARD_INKS.grid }, border: { color: CARD_INKS.grid } } : {};
  const right = spec.series.filter((s) => s.axis === 'right');
  const hasRight = right.length > 0;
  // A drawdown (all values <= 0) hangs from the top in the upper third, clear of the equity lines; its axis stops at
  // -100% (nothing loses more than everything), so a deep drawdown takes more of the height.
  const rightValues = right.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const hangingMin =
    rightValues.length && rightValues.every((v) => v <= 0)
      ? Math.max(-100, Math.floor((Math.min(...rightValues) * 3) / 10) * 10 || -10)
      : undefined;
  const type = spec.kind === 'line' ? 'line' : 'bar';
  return {
    type,
    data: {
      labels: spec.labels,
      datasets: spec.series.map((s, i) => {
        const color = s.axis === 'right' ? DRAWDOWN : PALETTE[i % PALETTE.length];
        return {
          label: s.name,
          data: s.values,
          yAxisID: s.axis === 'right' ? 'y2' : 'y',
          borderColor: color,
          backgroundColor: s.fill ? `${color}33` : color,
          fill: s.fill ? 'origin' : false,
          pointRadius: 0,
          borderWidth: type === 'line' ? 1.5 : 0,
        };
      }),
    },
    options: {
      ...fixedFrame(card),
      plugins: {
        title: titleOf(spec, card, ink),
        legend: { display: spec.series.length > 1, position: 'bottom', ...(card ? { labels: { ...ink, ...small, boxWidth: 12 } } : {}) },
      },
      scales: {
        // every label while they fit (a year, a month, an hour each); a long series (a backtest's days) is thinned
        x: {
          ticks: {
            ...(spec.labels.length > (style === 'full' ? 31 : 16)
              ? { autoSkip: true, maxTicksLimit: style === 'full' ? 12 : 8 }
              : { autoSkip: false }),
            maxRotation: 60,
            ...ink,
            ...small,
          },
          ...grid,
        },
        y: {
          title: { display: Boolean(spec.yLabel), text: spec.yLabel ?? '', ...ink },
          // counts and rates from zero, so a line's rise reads at its size; an equity curve (with its drawdown axis) is a level
          beginAtZero: !hasRight,
          position: 'left',
          ticks: { ...ink, ...small },
          ...grid,
        },
        ...(hasRight
          ? {
              y2: {
                title: { display: Boolean(spec.y2Label), text: spec.y2Label ?? '', ...ink },
                position: 'right',
                ticks: { ...ink, ...small },
                ...grid,
                grid: { drawOnChartArea: false, ...(card ? { color: CARD_INKS.grid } : {}) },
                ...(hangingMin !== undefined ? { min: hangingMin, max: 0 } : {}),
              },
            }
          : {}),
      },
    },
  } as ChartConfiguration;
}

/**
 * A heat map as a chartjs-chart-matrix chart: one cell per pair of values, its value written in it. The
 * functions read only the chart they are given (no closures), so QuickChart can run them as well.
 */
function heatmapConfig(spec: ChartSpec, style: ChartStyle): ChartConfiguration {
  const card = style === 'card';
  const ink = { color: CARD_INKS.text };
  const cells = heatCells(spec);
  const best = spec.best === 'low' ? 'lower' : 'higher';
  const values = cells.map((c) => c.v).filter((v): v is number => v !== null);
  const unit = spec.valueSuffix ?? '';
  const range = values.length ? `${Math.min(...values).toFixed(2)}${unit} to ${Math.max(...values).toFixed(2)}${unit}` : 'no values';
  return {
    type: 'matrix',
    data: {
      datasets: [
        {
          label: spec.title,
          data: cells,
          backgroundColor: cells.map((c) => c.fill),
          borderColor: '#ffffff',
          borderWidth: 1,
          width: ({ chart }: { chart: { chartArea?: { width: number }; scales: { x: { getLabels(): unknown[] } } } }) =>
            chart.chartArea ? chart.chartArea.width / chart.scales.x.getLabels().length - 1 : 0,
          height: ({ chart }: { chart: { chartArea?: { height: number }; scales: { y: { getLabels(): unknown[] } } } }) =>
            chart.chartArea ? chart.chartArea.height / chart.scales.y.getLabels().length - 1 : 0,
        },
      ],
    },
    options: {
      ...fixedFrame(card),
      plugins: {
        title: titleOf(spec, card, ink),
        subtitle: { display: true, text: `brighter is better (${best}); ${range}`, ...ink, font: { size: card ? 11 : 12 } },
        legend: { display: false },
        tooltip: { enabled: false },
      },
      scales: {
        x: {
          type: 'category',
          labels: spec.labels,
          offset: true,
          grid: { display: false },
          title: { display: Boolean(spec.xLabel), text: spec.xLabel ?? '', ...ink },
          ticks: { autoSkip: false, ...ink, ...(card ? { font: { size: 11 } } : {}) },
        },
        y: {
          type: 'category',
          labels: spec.series.map((s) => s.name),
          // the first row at the bottom, as on a chart's y axis
          reverse: true,
          offset: true,
          grid: { display: false },
          title: { display: Boolean(spec.yLabel), text: spec.yLabel ?? '', ...ink },
          ticks: { autoSkip: false, ...ink, ...(card ? { font: { size: 11 } } : {}) },
        },
      },
    },
    plugins: [
      {
        id: 'heatmapValues',
        afterDatasetsDraw(chart: {
          ctx: CanvasRenderingContext2D;
          getDatasetMeta(i: number): { data: { getCenterPoint(): { x: number; y: number }; width: number; height: number }[] };
          data: { datasets: { data: unknown[] }[] };
        }) {
          const { ctx } = chart;
          const meta = chart.getDatasetMeta(0);
          const data = chart.data.datasets[0].data as { text: string; ink: string }[];
          ctx.save();
          ctx.textAlign = 'center';
          ctx.textBaseline = 'middle';
          meta.data.forEach((cell, i) => {
            const { x, y } = cell.getCenterPoint();
            // as large as the cell allows (up to 16 px), smaller until it fits; a cell too small for 7 px stays a color
            let size = Math.min(16, Math.floor(cell.height * 0.45));
            ctx.font = `bold ${size}px sans-serif`;
            while (size >= 7 && ctx.measureText(data[i].text).width > cell.width - 4) ctx.font = `bold ${--size}px sans-serif`;
            if (size < 7) return;
            ctx.fillStyle = data[i].ink;
            ctx.fillText(data[i].text, x, y);
          });
          ctx.restore();
        },
      },
    ],
  } as unknown as ChartConfiguration;
}
