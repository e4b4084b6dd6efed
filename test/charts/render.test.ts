import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_SIZE, renderChart } from '../../src/charts/render.js';
import { renderChartPng } from '../../src/charts/render-png.js';
import { destroyWorkerPool } from '../../src/backtest/threads/pool.js';
import { chooseChart } from '../../src/charts/choose-chart.js';
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
