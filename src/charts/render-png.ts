// Renders a chart spec to PNG on this machine (Chart.js on a Skia canvas from
// @napi-rs/canvas): no network, no browser. It runs on a worker thread (see
// render.ts), which alone loads the canvas and Chart.js.
import { createCanvas } from '@napi-rs/canvas';
import { Chart, registerables } from 'chart.js';
import { MatrixController, MatrixElement } from 'chartjs-chart-matrix';
import type { ChartSpec } from '../core/answer.js';
import { chartInks, toChartJsConfig, type ChartStyle } from './chartjs-config.js';
import { encodeIndexedPng, hexOnWhite, rampPalette } from './indexed-png.js';

Chart.register(...registerables, MatrixController, MatrixElement);

/** A chart's layout size, and how many pixels it is drawn with a layout pixel (1 unless told). */
export interface ChartSize {
  width: number;
  height: number;
  pixelRatio?: number;
}

/** 'card': the card style, written as a palette PNG of the chart's own colors (several times smaller). */
export function renderChartPng(spec: ChartSpec, size: ChartSize, style: ChartStyle = 'full'): Buffer {
  const canvas = createCanvas(size.width, size.height);
  const ctx = canvas.getContext('2d');
  // a white background: chat clients show transparent PNGs on dark themes too. Chart.js clears the
  // canvas before it draws, so a fill made before `new Chart` is lost: it goes in before each draw.
  const background = {
    id: 'whiteBackground',
    beforeDraw: () => {
      ctx.save();
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, size.width, size.height);
      ctx.restore();
    },
  };
  const config = toChartJsConfig(spec, style);
  // Chart.js lays the chart out at the canvas' size and enlarges the canvas by the ratio to draw it
  if (size.pixelRatio) config.options = { ...config.options, devicePixelRatio: size.pixelRatio };
  const chart = new Chart(ctx as unknown as CanvasRenderingContext2D, { ...config, plugins: [background, ...(config.plugins ?? [])] });
  try {
    if (style === 'card') {
      const { data } = ctx.getImageData(0, 0, size.width, size.height);
      return encodeIndexedPng(data, size.width, size.height, rampPalette(chartInks(spec).map(hexOnWhite)));
    }
    return canvas.toBuffer('image/png');
  } finally {
    chart.destroy();
  }
}
