// The playground in a real browser: Debian's Chromium driven by playwright-core
// (.ci/run installs the chromium package when it is missing).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { ChartStore } from '../../../src/charts/chart-store.js';
import { playgroundRoutes } from '../../../src/channels/web/playground-routes.js';
import { chartRoutes } from '../../../src/server/chart-routes.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';

const CHROMIUM = '/usr/bin/chromium';
let db: TestDatabase;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
  const { desk, logger } = testDesk(db);
  const charts = new ChartStore();
  server = await startHttpServer('127.0.0.1', 0, [playgroundRoutes({ desk, charts, logger }), chartRoutes(charts)], logger);
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await db?.drop();
});

describe.skipIf(!existsSync(CHROMIUM))('playground in Chromium', () => {
  it('asks an offline-answerable question and shows the answer, the table and the chart image', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.fill('#question', 'How many crimes were reported each year?');
    await page.press('#question', 'Enter');
    await page.waitForSelector('img.chart');
    await expect.poll(() => page.$eval('img.chart', (img) => (img as HTMLImageElement).naturalWidth), { timeout: 15_000 }).toBeGreaterThan(100);
    const headline = await page.textContent('.msg.bot .headline');
    expect(headline).toMatch(/^From year 2001 to 2025, incidents went from \d+ to \d+/);
    expect(await page.textContent('.msg.bot .rows-note')).toBe('showing 10 of 25 rows');
    expect(await page.textContent('.msg.bot details pre')).toBe('SELECT year, count(*) AS incidents FROM crimes GROUP BY year ORDER BY year');
    // the thread is listed and kept in the browser
    expect(await page.textContent('#threads li.active')).toBe('How many crimes were reported each year?'.slice(0, 40));
    await page.close();
  });

  it('clicks through a clarification', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.fill('#question', 'How many robberies happened at night in 2019?');
    await page.press('#question', 'Enter');
    await page.waitForSelector('.options button');
    expect(await page.$$eval('.options button', (bs) => bs.map((b) => b.textContent))).toEqual(['22:00-06:00', '20:00-06:00', '18:00-06:00']);
    await page.click('.options button >> nth=1');
    await page.waitForSelector('.assumptions');
    expect(await page.textContent('.assumptions')).toBe('Assumptions: night: 20:00-06:00');
    const expected = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'ROBBERY' AND year = 2019 AND (extract(hour FROM date) >= 20 OR extract(hour FROM date) < 6)`)).rows[0].n;
    expect(await page.textContent('.msg.bot:last-child .headline')).toBe(`Incidents: ${expected.toLocaleString('en-US')}.`);
    await page.close();
  });
});
