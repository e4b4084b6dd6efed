// Teams cards' charts: drawn on the worker threads in the card style (640x320,
// a palette of the chart's own colors), the common shapes go inline in the
// card; what still does not fit goes to the chart store as a link. Prints the
// measured sizes next to the full-size PNG of the same chart.
import { afterAll, describe, expect, it } from 'vitest';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { CARD_CHART_SIZE, renderChart } from '../../src/charts/render.js';
import { destroyWorkerPool } from '../../src/backtest/threads/pool.js';
import { cardChart, INLINE_IMAGE_LIMIT } from '../../src/channels/teams/render-card.js';
import type { ChartSpec } from '../../src/core/answer.js';

afterAll(() => destroyWorkerPool());

const series = (name: string, values: number[], extra: Partial<ChartSpec['series'][number]> = {}) => ({
  name,
  values,
  axis: 'left' as const,
  fill: false,
  ...extra,
});
const AREAS = [
  'AUSTIN',
  'NEAR NORTH SIDE',
  'LOOP',
  'NEAR WEST SIDE',
  'WEST TOWN',
  'NORTH LAWNDALE',
  'SOUTH SHORE',
  'HUMBOLDT PARK',
  'LAKE VIEW',
  'WEST ENGLEWOOD',
  'ENGLEWOOD',
  'AUBURN GRESHAM',
  'ROSELAND',
  'CHATHAM',
  'LOGAN SQUARE',
  'GREATER GRAND CROSSING',
  'WEST GARFIELD PARK',
  'UPTOWN',
  'EAST GARFIELD PARK',
  'SOUTH CHICAGO',
  'CHICAGO LAWN',
  'ROGERS PARK',
  'LINCOLN PARK',
  'WOODLAWN',
  'NEW CITY',
];

/** The shapes answers usually have, at their usual sizes. */
const COMMON: [string, ChartSpec][] = [
  [
    'bar, 10 areas',
    {
      kind: 'bar',
      title: 'Thefts by community area, 2019',
      labels: AREAS.slice(0, 10),
      series: [
        series(
          'incidents',
          AREAS.slice(0, 10).map((_, i) => 5_200 - i * 410),
        ),
      ],
      yLabel: 'incidents',
    },
  ],
  [
    'bar, 25 areas',
    {
      kind: 'bar',
      title: 'Thefts by community area, 2019',
      labels: AREAS,
      series: [
        series(
          'incidents',
          AREAS.map((_, i) => Math.round(5_200 / (1 + i * 0.3))),
        ),
      ],
      yLabel: 'incidents',
    },
  ],
  [
    'line, 25 years',
    {
      kind: 'line',
      title: 'Crimes by year, all of Chicago',
      labels: Array.from({ length: 25 }, (_, i) => String(2001 + i)),
      series: [
        series(
          'crimes',
          Array.from({ length: 25 }, (_, i) => Math.round(486_000 - i * 15_300 + Math.sin(i) * 9_000)),
        ),
      ],
      yLabel: 'crimes',
    },
  ],
  [
    'line, 24 months, 2 series',
    {
      kind: 'line',
      title: 'Burglaries and robberies by month',
      labels: Array.from({ length: 24 }, (_, i) => `${2023 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`),
      series: [
        series(
          'burglaries',
          Array.from({ length: 24 }, (_, i) => 700 + Math.round(120 * Math.sin(i / 2))),
        ),
        series(
          'robberies',
          Array.from({ length: 24 }, (_, i) => 640 + Math.round(90 * Math.cos(i / 3))),
        ),
      ],
    },
  ],
  [
    'grouped bar, 12 types',
    {
      kind: 'grouped-bar',
      title: 'Incidents and arrests by type',
      labels: [
        'THEFT',
        'BATTERY',
        'CRIMINAL DAMAGE',
        'ASSAULT',
        'DECEPTIVE PRACTICE',
        'OTHER OFFENSE',
        'NARCOTICS',
        'BURGLARY',
        'MOTOR VEHICLE THEFT',
        'ROBBERY',
        'CRIMINAL TRESPASS',
        'WEAPONS VIOLATION',
      ],
      series: [
        series(
          'incidents',
          Array.from({ length: 12 }, (_, i) => 9_000 - i * 640),
        ),
        series(
          'arrests',
          Array.from({ length: 12 }, (_, i) => 2_400 - i * 150),
        ),
      ],
    },
  ],
  [
    'bar, 50 blocks (the most a result charts)',
    {
      kind: 'bar',
      title: 'Burglaries by block',
      labels: Array.from({ length: 50 }, (_, i) => `0${i}XX N CENTRAL AVE`),
      series: [
        series(
          'incidents',
          Array.from({ length: 50 }, (_, i) => Math.round(580 / (1 + i * 0.2))),
        ),
      ],
    },
  ],
];

/** A backtest's equity and drawdown over two years of trading days: hundreds of points and a filled area. */
function equityCurve(): ChartSpec {
  const n = 480;
  let equity = 1;
  let peak = 1;
  const values: number[] = [];
  const drawdown: number[] = [];
  for (let i = 0; i < n; i++) {
    equity *= 1 + Math.sin(i / 7) * 0.01 + Math.sin(i * 12.9898) * 0.012;
    peak = Math.max(peak, equity);
    values.push(Number(equity.toFixed(4)));
    drawdown.push(Number(((equity / peak - 1) * 100).toFixed(2)));
  }
  return {
    kind: 'line',
    title: '600519: equity and drawdown',
    labels: Array.from({ length: n }, (_, i) => `day ${i + 1}`),
    series: [
      series('equity', values),
      series(
        'buy and hold',
        values.map((v) => v * 0.97),
      ),
      series('drawdown %', drawdown, { axis: 'right', fill: true }),
    ],
    yLabel: 'equity',
    y2Label: 'drawdown %',
  };
}

const dataUriLength = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`.length;

describe('charts in Teams cards', () => {
  it('the common shapes go inline (card style, palette PNG); sizes printed', async () => {
    const report: string[] = [];
    const measured: { name: string; card: Buffer; url: string; links: Buffer[] }[] = [];
    for (const [name, spec] of COMMON) {
      const card = await renderChart(spec, undefined, 'card');
      const full = await renderChart(spec);
      const links: Buffer[] = [];
      const image = await cardChart(spec, (png) => (links.push(png), 'https://bot.example.com/charts/x.png'));
      report.push(
        `${name.padEnd(42)} card ${String(card.length).padStart(6)} B (data URI ${dataUriLength(card)} of ${INLINE_IMAGE_LIMIT})   full-size PNG ${full.length} B`,
      );
      measured.push({ name, card, url: image.url, links });
    }
    console.log(
      `Chart sizes (card ${CARD_CHART_SIZE.width}x${CARD_CHART_SIZE.height} palette PNG vs. full 960x480 PNG):\n${report.join('\n')}`,
    );
    for (const { name, card, url, links } of measured) {
      expect(url.startsWith('data:image/png;base64,'), name).toBe(true);
      expect(links, name).toEqual([]);
      // a real PNG of the card's size, on white
      const img = await loadImage(card);
      expect([img.width, img.height]).toEqual([CARD_CHART_SIZE.width, CARD_CHART_SIZE.height]);
      const canvas = createCanvas(img.width, img.height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      expect([...ctx.getImageData(1, 1, 1, 1).data]).toEqual([255, 255, 255, 255]);
    }
  });

  it('a chart that still does not fit (a backtest equity curve, 480 days) becomes a link to the chart store', async () => {
    const spec = equityCurve();
    const card = await renderChart(spec, undefined, 'card');
    const links: Buffer[] = [];
    const image = await cardChart(spec, (png) => (links.push(png), 'https://bot.example.com/charts/0123.png'));
    console.log(
      `backtest equity + drawdown, 480 points: card ${card.length} B (data URI ${dataUriLength(card)}), full-size PNG ${(await renderChart(spec)).length} B`,
    );
    expect(image).toEqual({ url: 'https://bot.example.com/charts/0123.png', alt: spec.title });
    expect(links).toHaveLength(1);
    expect(links[0].equals(card)).toBe(true);
  });
});
