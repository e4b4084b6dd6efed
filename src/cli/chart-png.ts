// A one-shot command's chart (ask, backtest run): drawn on this thread. The
// bot draws on the worker pool (charts/render.ts) so its event loop stays
// free; a command that draws one chart and exits has no event loop to keep
// free, and starting a thread to load Chart.js and the canvas there costs more
// than the drawing. Through QuickChart when QUICKCHART_URL is set, as the bot.
import type { ChartSpec } from '../core/answer.js';

export async function chartPng(spec: ChartSpec, quickchartUrl?: string): Promise<Buffer> {
  if (quickchartUrl) return (await import('../charts/render.js')).renderChart(spec, quickchartUrl);
  const [{ CHART_SIZE }, { renderChartPng }] = await Promise.all([import('../charts/render.js'), import('../charts/render-png.js')]);
  return renderChartPng(spec, CHART_SIZE);
}
