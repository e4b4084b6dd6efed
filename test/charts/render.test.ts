import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_SIZE, renderChart } from '../../src/charts/render.js';
import { renderChartPng } from '../../src/charts/render-png.js';
import { destroyWorkerPool } from '../../src/backtest/threads/pool.js';
import { chooseChart } from '../../src/charts/choose-chart.js';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { ChartSpec } from '../../src/core/answer.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const SPEC: ChartSpec = {
  kind: 'bar',
  title: 'Burglaries by block',
  labels: ['006XX N CENTRAL AVE', '005XX N CENTRAL AVE'],
  series: [{ name: 'incidents', values: [580, 558], axis: 'left', fill: false }],
};

let server: http.Server;
let url: string;
const received: { path: string; body: Record<string, unknown> }[] = [];
beforeAll(async () => {
  // a local stand-in for a self-hosted QuickChart: answers POST /chart with a PNG
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([PNG_MAGIC, Buffer.from('fake')]));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await destroyWorkerPool();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('chart rendering', () => {
  it('renders a PNG locally', async () => {
    const png = await renderChart(SPEC);
    expect(png.subarray(0, 4)).toEqual(PNG_MAGIC);
    expect(png.length).toBeGreaterThan(5_000);
  });

  it('draws on a worker thread the same PNG, byte for byte, as on this one', async () => {
    const png = await renderChart(SPEC);
    expect(Buffer.isBuffer(png)).toBe(true);
    expect(png.equals(renderChartPng(SPEC, CHART_SIZE))).toBe(true);
  });

  it('sends the Chart.js v4 config to the configured QuickChart server', async () => {
    const png = await renderChart(SPEC, url);
    expect(png.subarray(0, 4)).toEqual(PNG_MAGIC);
    expect(received[0].path).toBe('/chart');
    expect(received[0].body).toMatchObject({ version: '4', width: 960, height: 480, format: 'png' });
    expect(String(received[0].body.chart)).toContain('006XX N CENTRAL AVE');
    // a card's chart: the card's size and style
    await renderChart(SPEC, url, 'card');
    expect(received[1].body).toMatchObject({ version: '4', width: 640, height: 320, format: 'png' });
    expect(String(received[1].body.chart)).toContain('#333333');
  });

  it('draws a heat map: brighter is better, the first row at the bottom, each value in its cell', async () => {
    const heat = (best: 'high' | 'low'): ChartSpec => ({
      kind: 'heatmap',
      title: 'Sharpe of each pair',
      labels: ['6', '14'],
      series: [
        { name: '20', values: [1, 2], axis: 'left', fill: false },
        { name: '30', values: [3, 4], axis: 'left', fill: false },
      ],
      xLabel: 'RSI.n',
      yLabel: 'buy threshold',
      best,
    });
    /** Where a color is drawn: the mean x and y of its pixels, as fractions of the image. */
    const whereIs = async (png: Buffer, hex: string, tolerance = 0) => {
      const img = await loadImage(png);
      const canvas = createCanvas(img.width, img.height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, img.width, img.height);
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      let [sx, sy, n] = [0, 0, 0];
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - r) > tolerance || Math.abs(data[i + 1] - g) > tolerance || Math.abs(data[i + 2] - b) > tolerance) continue;
        sx += (i / 4) % img.width;
        sy += Math.floor(i / 4 / img.width);
        n++;
      }
      return { x: sx / n / img.width, y: sy / n / img.height, pixels: n };
    };
    const YELLOW = '#fde725'; // the best bin
    const PURPLE = '#440154'; // the worst
    for (const style of ['full', 'card'] as const) {
      const high = await renderChart(heat('high'), undefined, style);
      const best = await whereIs(high, YELLOW);
      const worst = await whereIs(high, PURPLE);
      expect(best.pixels).toBeGreaterThan(1_000);
      // 4 (RSI.n 14, threshold 30) is top right; 1 (6, 20) bottom left
      expect([best.x > 0.5, best.y < 0.5]).toEqual([true, true]);
      expect([worst.x < 0.5, worst.y > 0.5]).toEqual([true, true]);
      // the values of the bright cells (3 and 4, the top row) are written in black; nothing else is near black
      const text = await whereIs(high, '#000000', 40);
      expect(text.pixels).toBeGreaterThan(10);
      expect(text.y).toBeLessThan(0.5);
      // a KPI where lower is better (drawdown) turns the colors round
      const low = await whereIs(await renderChart(heat('low'), undefined, style), YELLOW);
      expect([low.x < 0.5, low.y > 0.5]).toEqual([true, true]);
    }
    // QuickChart gets the same matrix chart, its size functions written out (they read only the chart)
    await renderChart(heat('high'), url);
    const sent = String(received.at(-1)!.body.chart);
    expect(sent).toContain("type:'matrix'");
    expect(sent).toContain('chart.chartArea.width / chart.scales.x.getLabels().length');
  });

  it('chooses the chart from the result shape', () => {
    const series = chooseChart(
      {
        columns: ['year', 'incidents'],
        rows: [
          [2001, 5],
          [2002, 7],
          [2003, 4],
        ],
        rowCount: 3,
        truncated: false,
      },
      't',
    );
    expect(series).toMatchObject({ kind: 'line', labels: ['2001', '2002', '2003'] });
    const two = chooseChart(
      {
        columns: ['primary_type', 'incidents', 'arrests'],
        rows: [
          ['THEFT', 9, 1],
          ['BATTERY', 8, 2],
          ['ASSAULT', 3, 1],
        ],
        rowCount: 3,
        truncated: false,
      },
      't',
    );
    expect(two).toMatchObject({ kind: 'grouped-bar' });
    expect(two!.series.map((s) => s.name)).toEqual(['incidents', 'arrests']);
    expect(chooseChart({ columns: ['incidents'], rows: [[12]], rowCount: 1, truncated: false }, 't')).toBeUndefined();
  });
});
