// A channel-neutral chart spec -> a Chart.js v4 configuration. The same config
// renders locally to PNG or through a QuickChart server.
import type { ChartConfiguration } from 'chart.js';
import type { ChartSpec } from '../core/answer.js';

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];

export function toChartJsConfig(spec: ChartSpec): ChartConfiguration {
  const right = spec.series.filter((s) => s.axis === 'right');
  const hasRight = right.length > 0;
  // A drawdown (all values <= 0) hangs from the top in the upper third, clear of the equity lines.
  const rightValues = right.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const hangingMin = rightValues.length && rightValues.every((v) => v <= 0) ? Math.floor((Math.min(...rightValues) * 3) / 10) * 10 || -10 : undefined;
  const type = spec.kind === 'line' ? 'line' : 'bar';
  return {
    type,
    data: {
      labels: spec.labels,
      datasets: spec.series.map((s, i) => {
        const color = s.axis === 'right' ? '#d62728' : PALETTE[i % PALETTE.length];
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
      plugins: {
        title: { display: true, text: spec.title, font: { size: 16 } },
        legend: { display: spec.series.length > 1, position: 'bottom' },
      },
      scales: {
        x: { ticks: { maxTicksLimit: 10, autoSkip: true } },
        y: { title: { display: Boolean(spec.yLabel), text: spec.yLabel ?? '' }, position: 'left' },
        ...(hasRight ? {
              y2: {
                title: { display: Boolean(spec.y2Label), text: spec.y2Label ?? '' },
                position: 'right',
                grid: { drawOnChartArea: false },
                ...(hangingMin !== undefined ? { min: hangingMin, max: 0 } : {}),
              },
            } : {}),
      },
    },
  } as ChartConfiguration;
}
