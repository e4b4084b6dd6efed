// The playground page when the server says "too many questions" (issue 36,
// part 4): the refused question does not stay in the thread (neither on the
// page nor in the copy the browser keeps), a transient notice says how long to
// wait, and the question goes back in the box.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { ChartStore } from '../../../src/charts/chart-store.js';
import { playgroundRoutes } from '../../../src/channels/web/playground-routes.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { testDesk } from '../../helpers/desk.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';

const CHROMIUM = '/usr/bin/chromium';
let db: TestDatabase;
let server: RunningServer;
let browser: Browser;
let jobs: Jobs;

beforeAll(async () => {
  db = await createTestDatabase();
  const { desk, logger } = testDesk(db);
  jobs = await testJobs(db, desk, logger);
  // a bucket of one question: two fragments ("help" is one word), then 429
  const access = { host: '127.0.0.1', allowedHosts: [], perMinute: 1 };
  const answering = { queue: jobs.queue, deliveries: jobs.deliveries, events: jobs.events };
  server = await startHttpServer('127.0.0.1', 0, [playgroundRoutes({ ...answering, charts: new ChartStore(), logger, access })], logger);
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await jobs?.stop();
  await db?.drop();
});

describe.skipIf(!existsSync(CHROMIUM))('playground: asking too fast', () => {
  it('keeps the refused question out of the thread and its stored history, and shows a transient notice with the wait', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    const stored = () => page.evaluate(() => localStorage.getItem('datadesk.threads'));
    const ask = async (text: string) => {
      await page.fill('#question', text);
      await page.press('#question', 'Enter');
    };
    await ask('help');
    await page.waitForSelector('.msg.bot:nth-of-type(2) .headline, .msg.bot .headline');
    await ask('help');
    await expect.poll(() => page.$$eval('.msg.bot .headline', (hs) => hs.length)).toBe(2);
    await expect.poll(() => page.$eval('#send', (b) => (b as HTMLElement).hidden)).toBe(false);
    const before = await stored();
    expect(JSON.parse(before!)[0].messages).toHaveLength(4);
    const shown = await page.$$eval('#messages > *', (ms) => ms.length);

    await ask('help');
    await page.waitForSelector('.wait-notice');
    expect(await page.textContent('.wait-notice')).toMatch(/^Too many questions: at most 1 a minute\. Try again in \d+ s\.$/);
    expect(await page.getAttribute('.wait-notice', 'role')).toBe('status');
    // nothing of the refused turn stays: not on the page, not in what the browser keeps
    expect(await stored()).toBe(before);
    expect(await page.$$eval('#messages > *', (ms) => ms.length)).toBe(shown);
    expect(await page.$$('.msg.bot .error')).toEqual([]);
    // the question is back in the box, to send again when the wait is over
    expect(await page.inputValue('#question')).toBe('help');
    // after a reload the thread is as it was
    await page.reload();
    await expect.poll(() => page.$$eval('.msg.bot .headline', (hs) => hs.length)).toBe(2);
    await page.close();
  });
});
