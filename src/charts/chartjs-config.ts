// A channel-neutral chart spec -> a Chart.js v4 configuration. The same config
// renders locally to PNG or through a QuickChart server.
import type { ChartConfiguration } from 'chart.js';
import type { ChartSpec } from '../core/answer.js';

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const DRAWDOWN = '#d62728';

/**
 * 'full': files, Slack, the playground. 'card': a Teams card's inline image,
 * small and drawn in few colors (see CARD_INKS and indexed-png.ts).
 */
export type ChartStyle = 'full' | 'card';

/** The card style's text and grid colors (Chart.js' defaults are translucent: they would blend into many). */
const CARD_INKS = { text: '#333333', grid: '#dddddd' };

/** Every solid color a card chart draws with, over white: text, grid, and each series' line, bar or fill. */
export function chartInks(spec: ChartSpec): string[] {
  const inks = [CARD_INKS.text, CARD_INKS.grid];
  spec.series.forEach((s, i) => {
    const color = s.axis === 'right' ? DRAWDOWN : PALETTE[i % PALETTE.length];
    inks.push(color);
    if (s.fill) inks.push(`${color}33`);
  });
  return [...new Set(inks)];
}

export function toChartJsConfig(spec: ChartSpec, style: ChartStyle = 'full'): ChartConfiguration {
  const card = style === 'card';
  const ink = card ? { color: CARD_INKS.text } : {};
  const small = card ? { font: { size: 11 } } : {};
  const grid = card ? { grid: { color: CARD_INKS.grid }, border: { color: CARD_INKS.grid } } : {};
  const right = spec.series.filter((s) => s.axis === 'right');
  const hasRight = right.length > 0;
  // A drawdown (all values <= 0) hangs from the top in the upper third, clear of the equity lines.
  const rightValues = right.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const hangingMin =
    rightValues.length && rightValues.every((v) => v <= 0) ? Math.floor((Math.min(...rightValues) * 3) / 10) * 10 || -10 : undefined;
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
      responsive: false,
      animation: false,
      ...(card ? { devicePixelRatio: 1 } : {}),
      plugins: {
        title: { display: true, text: spec.title, font: { size: card ? 14 : 16 }, ...ink },
        legend: { display: spec.series.length > 1, position: 'bottom', ...(card ? { labels: { ...ink, ...small, boxWidth: 12 } } : {}) },
      },
      scales: {
        x: { ticks: { maxTicksLimit: card ? 8 : 10, autoSkip: true, ...ink, ...small }, ...grid },
        y: {
          title: { display: Boolean(spec.yLabel), text: spec.yLabel ?? '', ...ink },
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
