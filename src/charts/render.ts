// One entry point for chart images: a self-hosted QuickChart server when
// QUICKCHART_URL is set (quickchart-js, POST /chart), the local renderer
// otherwise. Both draw the same Chart.js v4 configuration.
import QuickChartModule from 'quickchart-js';

// quickchart-js is CommonJS whose module.exports is the class; its typings say
// `export default`, which NodeNext reads as a namespace. This is the class.
const QuickChart = QuickChartModule as unknown as typeof QuickChartModule.default;
import type { ChartSpec } from '../core/answer.js';
import { toChartJsConfig } from './chartjs-config.js';
import { runTask } from '../backtest/threads/pool.js';

export class ChartRenderError extends Error {}

export const CHART_SIZE = { width: 960, height: 480 };

/** The local renderer on a worker thread: drawing a chart takes tens of milliseconds of CPU. */
async function renderLocally(spec: ChartSpec): Promise<Buffer> {
  const png = await runTask('renderPng', { spec, size: CHART_SIZE });
  return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
}

export async function renderChart(spec: ChartSpec, quickchartUrl?: string): Promise<Buffer> {
  if (!quickchartUrl) return renderLocally(spec);
  const url = new URL(quickchartUrl);
  const chart = new QuickChart()
    .setScheme(url.protocol.replace(':', ''))
    .setHost(url.host)
    .setVersion('4')
    .setWidth(CHART_SIZE.width)
    .setHeight(CHART_SIZE.height)
    .setBackgroundColor('white')
    .setFormat('png')
    .setConfig(toChartJsConfig(spec));
  try {
    return await chart.toBinary();
  } catch (error) {
    throw new ChartRenderError(`QuickChart at ${url.origin} could not draw the chart: ${(error as Error).message}`);
  }
}
