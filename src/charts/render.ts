// One entry point for chart images: a self-hosted QuickChart server when
// QUICKCHART_URL is set (quickchart-js, POST /chart), the local renderer
// otherwise. Both draw the same Chart.js v4 configuration. The QuickChart
// client (and its fetch library) loads only when QUICKCHART_URL is set.
import type QuickChartModule from 'quickchart-js';
import type { ChartSpec } from '../core/answer.js';
import { toChartJsConfig, type ChartStyle } from './chartjs-config.js';
import type { ChartSize } from './render-png.js';
import { runTask } from '../backtest/threads/pool.js';

class ChartRenderError extends Error {}

export const CHART_SIZE = { width: 960, height: 480 };
/**
 * A Teams card's chart: at this size, in the card style and as a palette PNG,
 * bar and line charts of up to 50 points take 3-5 KB, well within the card's
 * inline limit (see test/charts/card-chart-size.test.ts for the measurements).
 */
export const CARD_CHART_SIZE = { width: 640, height: 320 };

/** The playground's chart on a phone: laid out at 400 px, drawn at twice that for a phone's dense screen. */
const PHONE_CHART_SIZE = { width: 400, height: 320, pixelRatio: 2 };

const sizeOf = (style: ChartStyle): ChartSize => (style === 'card' ? CARD_CHART_SIZE : style === 'phone' ? PHONE_CHART_SIZE : CHART_SIZE);

/** The local renderer on a worker thread: drawing a chart takes tens of milliseconds of CPU. */
async function renderLocally(spec: ChartSpec, style: ChartStyle): Promise<Buffer> {
  const png = await runTask('renderPng', { spec, size: sizeOf(style), style });
  return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
}

/**
 * A chart as PNG. 'card' (Teams cards): smaller and in few colors; through
 * QuickChart it comes at the card's size and style but as QuickChart encodes
 * it (full color), so it is larger and more often linked than inlined.
 */
export async function renderChart(spec: ChartSpec, quickchartUrl?: string, style: ChartStyle = 'full'): Promise<Buffer> {
  if (!quickchartUrl) return renderLocally(spec, style);
  const size = sizeOf(style);
  const url = new URL(quickchartUrl);
  // quickchart-js is CommonJS whose module.exports is the class; its typings say
  // `export default`, which NodeNext reads as a namespace. This is the class.
  const QuickChart = (await import('quickchart-js')).default as unknown as typeof QuickChartModule.default;
  const chart = new QuickChart()
    .setScheme(url.protocol.replace(':', ''))
    .setHost(url.host)
    .setVersion('4')
    .setWidth(size.width)
    .setHeight(size.height)
    .setDevicePixelRatio(size.pixelRatio ?? 1)
    .setBackgroundColor('white')
    .setFormat('png')
    .setConfig(toChartJsConfig(spec, style));
  try {
    return await chart.toBinary();
  } catch (error) {
    throw new ChartRenderError(`QuickChart at ${url.origin} could not draw the chart: ${(error as Error).message}`);
  }
}
