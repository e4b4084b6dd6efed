// Renders a chart spec to PNG on this machine (Chart.js on a Skia canvas from
// @napi-rs/canvas): no network, no browser. It runs on a worker thread (see
// render.ts), which alone loads the canvas and Chart.js.
import { createCanvas } from '@napi-rs/canvas';
import { Chart, registerables } from 'chart.js';
import type { ChartSpec } from '../core/answer.js';
import { toChartJsConfig } from './chartjs-config.js';

Chart.register(...registerables);

export function renderChartPng(spec: ChartSpec, size: { width: number; height: number }): Buffer {
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
