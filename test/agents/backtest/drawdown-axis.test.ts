// The equity chart's drawdown axis hangs from 0 and never runs past -100%: a 43% drawdown drawn in the upper third
// would need an axis to -130%, which no equity can reach.
import { describe, expect, it } from 'vitest';
import { toChartJsConfig } from '../../../src/charts/chartjs-config.js';
import type { ChartSpec } from '../../../src/core/answer.js';

const chart = (worst: number): ChartSpec => ({
  kind: 'line',
  title: 'strategy vs buy and hold',
  labels: ['2023-01-03', '2023-01-04', '2023-01-05'],
  series: [
    { name: 'Strategy equity', values: [1_000_000, 570_000, 600_000], axis: 'left', fill: false },
    { name: 'Drawdown %', values: [0, worst, worst + 3], axis: 'right', fill: true },
  ],
  yLabel: 'yuan',
  y2Label: 'drawdown %',
});

const y2Min = (spec: ChartSpec) => (toChartJsConfig(spec).options!.scales as Record<string, { min?: number }>).y2.min;

describe('the drawdown axis', () => {
  it('a 43% drawdown: the axis stops at -100%, not -130%', () => expect(y2Min(chart(-43))).toBe(-100));
  it('a 20% drawdown still hangs in the upper third: -60%', () => expect(y2Min(chart(-20))).toBe(-60));
});
