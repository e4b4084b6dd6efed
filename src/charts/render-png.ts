// Renders a chart spec to PNG on this machine (Chart.js on a Skia canvas from
// @napi-rs/canvas): no network, no browser.
import { createCanvas } from '@napi-rs/canvas';
import { Chart, registerables } from 'chart.js';
import type { ChartSpec } from '../core/answer.js';
import { toChartJsConfig } from './chartjs-config.js';

Chart.register(...registerables);

export const CHART_SIZE = { width: 960, height: 480 };

export function renderChartPng(spec: ChartSpec, size = CHART_SIZE): Buffer {
  const canvas = createCanvas(size.width, size.height);
  const ctx = canvas.getContext('2d');
  // a white background: chat clients show transparent PNGs on dark themes too
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, size.width, size.height);
  const chart = new Chart(ctx as unknown as CanvasRenderingContext2D, {
    ...toChartJsConfig(spec),
    plugins: [],
  });
  try {
    return canvas.toBuffer('image/png');
  } finally {
    chart.destroy();
  }
}
