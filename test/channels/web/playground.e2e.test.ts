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
import { VerifiedStore } from '../../../src/verified/verified-store.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';

const CHROMIUM = '/usr/bin/chromium';
let db: TestDatabase;
let server: RunningServer;
/** the playground as on HOST=0.0.0.0 with PLAYGROUND_TOKEN (listening on 127.0.0.1 all the same) */
let tokenServer: RunningServer;
const TOKEN = 'c0ffee00c0ffee00c0ffee00c0ffee00';
let browser: Browser;
let jobs: Jobs;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
  const verified = new VerifiedStore(db.pool);
  const { desk, logger } = testDesk(db, { verified });
  const charts = new ChartStore();
  jobs = await testJobs(db, desk, logger);
  const answering = { queue: jobs.queue, deliveries: jobs.deliveries, events: jobs.events, feedback: { pool: db.pool, verified } };
  const access = { host: '127.0.0.1', allowedHosts: [], perMinute: 100 };
  server = await startHttpServer('127.0.0.1', 0, [playgroundRoutes({ ...answering, charts, logger, access }), chartRoutes(charts)], logger);
  const withToken = { ...access, host: '0.0.0.0', token: TOKEN };
  tokenServer = await startHttpServer(
    '127.0.0.1',
    0,
    [playgroundRoutes({ ...answering, charts, logger, access: withToken }), chartRoutes(charts)],
    logger,
  );
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await tokenServer?.close();
  await jobs?.stop();
  await db?.drop();
});

describe.skipIf(!existsSync(CHROMIUM))('playground in Chromium', () => {
  it('asks an offline-answerable question and shows the answer, the table and the chart image', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.fill('#question', 'How many crimes were reported each year?');
    await page.press('#question', 'Enter');
    await page.waitForSelector('img.chart');
    await expect
      .poll(() => page.$eval('img.chart', (img) => (img as HTMLImageElement).naturalWidth), { timeout: 15_000 })
      .toBeGreaterThan(100);
    const headline = await page.textContent('.msg.bot .headline');
    expect(headline).toBe('Crimes by year, all of Chicago');
    expect(await page.$$eval('.msg.bot .understood .chip', (cs) => cs.map((c) => c.textContent))).toEqual([
      'crimes',
      'all of Chicago',
      'by year',
    ]);
    expect(await page.textContent('.msg.bot .rows-note')).toBe('rows 1–10 of 20');
    expect(await page.textContent('.msg.bot .more-rows')).toBe('showing the first 20 of 25');
    // follow-ups to click, from what the plan did not do yet
    expect(await page.$$eval('.msg.bot .follow-ups:not(.rerun) button', (bs) => bs.map((b) => b.textContent))).toEqual(['only arrests']);
    // and a Re-run of the same plan on today's data, apart from the suggestions
    expect(await page.$$eval('.msg.bot .follow-ups.rerun button', (bs) => bs.map((b) => b.textContent))).toEqual(['Re-run']);
    // the SQL laid out as our compiler writes it (a clause a line, the rollup it ran on said first), numbers right-aligned
    expect(await page.textContent('.msg.bot details pre')).toMatch(
      /^(-- answered from \w+.*\n)?WITH counts AS \(\n  SELECT year AS k1,[\s\S]*\nFROM axis1\n[\s\S]*ORDER BY axis1\.k1$/,
    );
    expect(await page.$eval('.msg.bot td.num', (td) => getComputedStyle(td).textAlign)).toBe('right');
    // the thread is listed and kept in the browser, under an id of 128 random bits
    expect(await page.textContent('#threads li.active')).toBe('How many crimes were reported each year?'.slice(0, 40));
    const ids = await page.evaluate(() => JSON.parse(localStorage.getItem('datadesk.threads') ?? '[]').map((t: { id: string }) => t.id));
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
    await page.close();
  });

  it('gives threads saved with an old, guessable id a new one, and shows why the server refused a request', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.evaluate(() =>
      localStorage.setItem('datadesk.threads', JSON.stringify([{ id: 'tlz3k9abc123', title: 'Old thread', messages: [] }])),
    );
    await page.reload();
    const ids = await page.evaluate(() => JSON.parse(localStorage.getItem('datadesk.threads') ?? '[]').map((t: { id: string }) => t.id));
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(await page.textContent('#threads li.active')).toBe('Old thread');
    // an empty question is refused by the server with a reason, which the page shows
    await page.evaluate(() => localStorage.setItem('datadesk.threads', JSON.stringify([])));
    await page.route('**/api/ask', (route) => route.continue({ postData: JSON.stringify({ thread: '0'.repeat(32), text: ' ' }) }));
    await page.reload();
    await page.fill('#question', 'anything');
    await page.press('#question', 'Enter');
    await page.waitForSelector('.msg.bot .error');
    expect(await page.textContent('.msg.bot .error')).toMatch(/^text must be the question/);
    await page.close();
  });

  it('with a token: the link with ?token= opens the page once, and the cookie carries the questions', async () => {
    const page = await browser.newPage();
    const refused = await page.goto(tokenServer.url);
    expect(refused?.status()).toBe(401);
    await page.goto(`${tokenServer.url}/?token=${TOKEN}`);
    expect(page.url()).toBe(`${tokenServer.url}/`);
    await page.fill('#question', 'help');
    await page.press('#question', 'Enter');
    await page.waitForSelector('.msg.bot .headline');
    expect(await page.textContent('.msg.bot .headline')).toBe('What I can do');
    await page.close();
  });

  it('clicks through a clarification', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.fill('#question', 'How many robberies happened at night in 2019?');
    await page.press('#question', 'Enter');
    await page.waitForSelector('.options button');
    expect(await page.$$eval('.options button', (bs) => bs.map((b) => b.textContent))).toEqual([
      '22:00-06:00',
      '20:00-06:00',
      '18:00-06:00',
    ]);
    await page.click('.options button >> nth=1');
    await page.waitForSelector('.assumptions');
    expect(await page.textContent('.assumptions')).toBe('Assumptions: night: 20:00-06:00');
    const expected = (
      await db.pool.query(
        `SELECT count(*) AS n FROM crimes WHERE primary_type = 'ROBBERY' AND year = 2019 AND (extract(hour FROM date) >= 20 OR extract(hour FROM date) < 6)`,
      )
    ).rows[0].n;
    expect(await page.textContent('.msg.bot:last-child .headline')).toBe(
      `Robberies in 2019 at night (20:00-06:00), all of Chicago: ${expected.toLocaleString('en-US')}`,
    );
    // the answered clarification shows the choice and has no buttons left, also after a reload
    await page.reload();
    expect(await page.textContent('.chosen')).toBe('✓ 20:00-06:00');
    expect(await page.$$('.options button')).toHaveLength(0);
    await page.close();
  });

  it('on a phone (390 px): nothing wider than the screen; Send gives way to Cancel while a question is answered', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(server.url);
    // a slow network: the question stays in flight long enough to look at the form
    await page.route('**/api/ask', async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.continue();
    });
    await page.fill('#question', 'Which blocks had the most thefts?');
    await page.press('#question', 'Enter');
    expect(await page.isVisible('#cancel')).toBe(true);
    expect(await page.isVisible('#send')).toBe(false);
    expect(await page.isDisabled('#question')).toBe(true);
    await page.waitForSelector('.msg.bot table');
    expect(await page.isVisible('#send')).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await page.isVisible('a.export')).toBe(false); // no export configured on this server
    await page.screenshot({ path: 'test-results/playground-390.png', fullPage: true }).catch(() => undefined);
    // Cancel: the page stops waiting and says so; the next question goes through
    await page.fill('#question', 'How many thefts were reported in 2019?');
    await page.press('#question', 'Enter');
    await page.click('#cancel');
    await page.waitForSelector('.msg.bot:last-child .error');
    expect(await page.textContent('.msg.bot:last-child .error')).toBe('Cancelled. Ask again when you like.');
    expect(await page.isVisible('#send')).toBe(true);
    await page.close();
  });

  it('in the dark theme on a phone: dark page, every control at least 44 px, the threads opened and switched by keyboard alone', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    await page.goto(server.url);
    for (const [i, q] of ['How many thefts were reported in 2019?', 'How many crimes were reported each year?'].entries()) {
      if (i > 0) {
        // on a phone, + New thread is in the drawer
        await page.click('#threads-toggle');
        await page.click('#new-thread');
      }
      await page.fill('#question', q);
      await page.press('#question', 'Enter');
      await page.waitForSelector(`.msg.bot .headline`);
    }
    // the chart (crimes by year) is the one drawn for a phone (laid out at 400 px, twice as many pixels), not the wide one shrunk
    await expect
      .poll(() => page.$eval('img.chart', (img) => ((img as HTMLImageElement).complete ? (img as HTMLImageElement).naturalWidth : 0)), {
        timeout: 15_000,
      })
      .toBe(800);
    const phoneSrc = new URL(String(await page.getAttribute('picture source', 'srcset')), server.url).href;
    expect(await page.$eval('img.chart', (img) => (img as HTMLImageElement).currentSrc)).toBe(phoneSrc);
    expect(await page.$eval('img.chart', (img) => img.getBoundingClientRect().width)).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(26, 29, 33)');
    expect(await page.evaluate(() => getComputedStyle(document.body).color)).toBe('rgb(232, 232, 232)');
    // every visible control a finger can hit
    const small = await page.$$eval('button, summary, input, a.export', (els) =>
      els
        .filter((e) => (e as HTMLElement).offsetParent)
        .map((e) => ({ what: `${e.tagName} ${(e.textContent ?? '').trim().slice(0, 20)}`, ...e.getBoundingClientRect().toJSON() }))
        .filter((r) => r.width < 44 || r.height < 44)
        .map((r) => r.what),
    );
    expect(small).toEqual([]);
    // the drawer and the threads by keyboard: focus the toggle, Enter opens it, Tab reaches the threads, Enter switches
    await page.focus('#threads-toggle');
    await page.keyboard.press('Enter');
    expect(await page.getAttribute('#threads-toggle', 'aria-expanded')).toBe('true');
    const titles = await page.$$eval('#threads button', (bs) => bs.map((b) => b.textContent));
    expect(titles).toHaveLength(2);
    await page.keyboard.press('Tab'); // + New thread
    await page.keyboard.press('Tab'); // the first thread
    await page.keyboard.press('Tab'); // the second
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(titles[1]);
    await page.keyboard.press('Enter');
    expect(await page.getAttribute('#threads li:nth-child(2) button', 'aria-current')).toBe('true');
    expect(await page.textContent('.msg.user')).toBe(`You${titles[1]}`);
    await page.screenshot({ path: 'test-results/playground-390-dark.png', fullPage: true }).catch(() => undefined);
    await page.close();
  });

  it('a suggested follow-up, clicked, is asked in the thread and answered under it', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.fill('#question', 'How many thefts were reported in 2019?');
    await page.press('#question', 'Enter');
    await page.waitForSelector('.msg.bot .follow-ups:not(.rerun) button');
    expect(await page.$$eval('.msg.bot .follow-ups:not(.rerun) button', (bs) => bs.map((b) => b.textContent))).toEqual([
      'by month',
      'compare with 2018',
      'only arrests',
    ]);
    await page.click('.msg.bot .follow-ups button >> text=compare with 2018');
    await page.waitForSelector('.msg.bot:last-child .headline');
    expect(await page.textContent('.msg.user:nth-last-child(2)')).toContain('compare with 2018');
    expect(await page.$$eval('.msg.bot:last-child .chip', (cs) => cs.map((c) => c.textContent))).toEqual([
      'thefts',
      'in 2019',
      'all of Chicago',
      'compared with 2018',
    ]);
    await page.close();
  });

  it('👍 on an answer makes its question verified: asked again (other casing), the answer says so; the verdict stays after a reload', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.fill('#question', 'Which blocks had the most battery cases?');
    await page.press('#question', 'Enter');
    await page.waitForSelector('.msg.bot .feedback button');
    await page.click('.msg.bot .feedback button >> nth=0');
    await expect
      .poll(() => page.textContent('.msg.bot .feedback-note'))
      .toMatch(/^Thanks: "Which blocks had the most batteries\?" is now a verified question .*asked in any words that mean the same/);
    await page.reload();
    expect(await page.getAttribute('.msg.bot .feedback button >> nth=0', 'class')).toBe('chosen-verdict');
    await page.fill('#question', 'which blocks had the most BATTERY cases');
    await page.press('#question', 'Enter');
    await page.waitForSelector('.msg.bot:last-child .verified');
    expect(await page.textContent('.msg.bot:last-child .verified')).toBe(
      "✓ Verified answer: this question's query was checked by web:playground:" +
        (await page.evaluate(() => JSON.parse(localStorage.getItem('datadesk.threads') ?? '[]')[0].id.slice(0, 8))),
    );
    await page.close();
  });
});
