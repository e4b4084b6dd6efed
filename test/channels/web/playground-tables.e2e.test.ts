// The playground's tables and keyboard in a real browser (issue 36 part 6): a table sorts by a column and pages
// through every row the page received, the keyboard has a skip link and keeps its place when a thread opens, and a
// new answer is added to the thread, not the thread rebuilt. Debian's Chromium driven by playwright-core, as in
// playground.e2e.test.ts.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DataDesk } from '../../../src/agents/desk.js';
import { ChartStore } from '../../../src/charts/chart-store.js';
import { playgroundRoutes } from '../../../src/channels/web/playground-routes.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { ThreadMemory, createKeyv, type ThreadState } from '../../../src/memory/thread-memory.js';
import { chartRoutes } from '../../../src/server/chart-routes.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testJobs } from '../../helpers/jobs.js';

const CHROMIUM = '/usr/bin/chromium';
const WIDTHS = [390, 1280];
/** 700 rows (crime types by year in the generated data), of which an answer keeps 100 */
const LONG = 'How many crimes by type and year?';
let db: TestDatabase;
let server: RunningServer;
let browser: Browser;
let jobs: Jobs;

type Cell = string | number | boolean | null;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
  const logger = createMemoryLogger();
  // as `serve` makes it: an answer keeps SQL_DISPLAY_ROWS (100) rows
  const desk = new DataDesk({
    readPool: db.pool,
    writePool: db.pool,
    reader: db.reader?.pool,
    logger,
    memory: new ThreadMemory(createKeyv<ThreadState>('memory', 'thread'), 3_600_000),
    statementTimeoutMs: 10_000,
    displayRows: 100,
    glossaryDefaults: {},
  });
  jobs = await testJobs(db, desk, logger);
  const charts = new ChartStore();
  const playground = playgroundRoutes({
    queue: jobs.queue,
    deliveries: jobs.deliveries,
    events: jobs.events,
    charts,
    logger,
    exports: { pool: db.reader!.pool, rowLimit: 100_000, statementTimeoutMs: 10_000 },
    access: { host: '127.0.0.1', allowedHosts: [], perMinute: 100 },
  });
  server = await startHttpServer('127.0.0.1', 0, [playground, chartRoutes(charts)], logger);
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
  await jobs?.stop();
  await db?.drop();
});

/** Asks in the open thread and waits for the answer: the thread's `n`th. */
async function ask(page: Page, question: string, n: number) {
  await page.fill('#question', question);
  await page.press('#question', 'Enter');
  await page.waitForFunction((n) => document.querySelectorAll('.msg.bot .headline, .msg.bot .error').length >= n, n, { timeout: 45_000 });
}

/** The rows the page received for the open thread's `n`th answer, as it keeps them. */
const kept = (page: Page, n = 0) =>
  page.evaluate(
    (n) =>
      JSON.parse(localStorage.getItem('datadesk.threads') ?? '[]')[0].messages.filter((m: { role: string }) => m.role === 'bot')[n].payload
        .answer.table.rows as Cell[][],
    n,
  );

/** The rows shown in a table (the first the selector finds), as text. */
const shown = (page: Page, table: string) =>
  page
    .locator(table)
    .first()
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));

const asText = (row: Cell[]) => row.map((c) => (c === null ? '' : typeof c === 'number' ? c.toLocaleString('en-US') : String(c)));

/** The order the page must show: numbers as numbers, text as text (digits in it as numbers), empty cells last, ties as received. */
function sortedBy(rows: Cell[][], column: number, dir: 1 | -1): Cell[][] {
  const numbers = rows.every((r) => r[column] === null || typeof r[column] === 'number');
  const text = new Intl.Collator('en-US', { numeric: true, sensitivity: 'base' });
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      const x = a.r[column];
      const y = b.r[column];
      // empty cells last, whichever way
      if (x === null || y === null) return (x === null ? 1 : 0) - (y === null ? 1 : 0) || a.i - b.i;
      const c = numbers ? (x as number) - (y as number) : text.compare(String(x), String(y));
      return dir * c || a.i - b.i;
    })
    .map(({ r }) => r);
}

describe.skipIf(!existsSync(CHROMIUM))('playground tables and keyboard in Chromium', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px: a long table sorts by any column (click, Enter, Space) and pages 10 rows at a time; the next answer is added, not the thread rebuilt`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(server.url);
      expect(await page.getAttribute('#messages', 'aria-live')).toBeNull();
      await ask(page, LONG, 1);
      const t = '.msg.bot .data-table';
      const rows = await kept(page);
      expect(rows).toHaveLength(100);
      expect(await page.$$eval(`${t} th`, (ths) => ths.map((th) => th.textContent?.replace(/[↕▲▼]$/, '')))).toEqual([
        'primary type',
        'year',
        'incidents',
      ]);
      expect(await shown(page, t)).toEqual(rows.slice(0, 10).map(asText));
      expect(await page.textContent(`${t} .pager .rows-note`)).toBe('rows 1–10 of 100');
      expect(await page.textContent(`${t} .more-rows`)).toBe('showing the first 100 of 700; Download CSV for all');
      expect(await page.isDisabled(`${t} .page-prev`)).toBe(true);
      // the live region says the headline
      const firstHeadline = await page.textContent('.msg.bot .headline');
      await expect.poll(() => page.textContent('#announce')).toBe(firstHeadline);

      // a column of numbers, clicked: smallest first; clicked again: largest first
      const th = (i: number) => page.locator(`${t} th`).nth(i);
      await th(2).locator('button').click();
      expect(await th(2).getAttribute('aria-sort')).toBe('ascending');
      expect(await shown(page, t)).toEqual(sortedBy(rows, 2, 1).slice(0, 10).map(asText));
      await th(2).locator('button').click();
      expect(await th(2).getAttribute('aria-sort')).toBe('descending');
      expect(await shown(page, t)).toEqual(sortedBy(rows, 2, -1).slice(0, 10).map(asText));

      // a column of text by the keyboard: Enter sorts it (the other column lets go of aria-sort), Space reverses
      await th(0).locator('button').focus();
      await page.keyboard.press('Enter');
      expect(await th(0).getAttribute('aria-sort')).toBe('ascending');
      expect(await th(2).getAttribute('aria-sort')).toBeNull();
      expect(await shown(page, t)).toEqual(sortedBy(rows, 0, 1).slice(0, 10).map(asText));
      await page.keyboard.press('Space');
      expect(await th(0).getAttribute('aria-sort')).toBe('descending');
      const order = sortedBy(rows, 0, -1);
      expect(await shown(page, t)).toEqual(order.slice(0, 10).map(asText));

      // the second page: rows 11-20 of that order
      await page.click(`${t} .page-next`);
      expect(await page.textContent(`${t} .pager .rows-note`)).toBe('rows 11–20 of 100');
      expect(await shown(page, t)).toEqual(order.slice(10, 20).map(asText));
      // on to the last page by keyboard: Next is then disabled, and the keyboard stays on the pager
      await page.focus(`${t} .page-next`);
      for (let i = 0; i < 8; i++) await page.keyboard.press('Enter');
      expect(await page.textContent(`${t} .pager .rows-note`)).toBe('rows 91–100 of 100');
      expect(await shown(page, t)).toEqual(order.slice(90, 100).map(asText));
      expect(await page.isDisabled(`${t} .page-next`)).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.className)).toBe('page-prev');
      await page.keyboard.press('Enter');
      expect(await page.textContent(`${t} .pager .rows-note`)).toBe('rows 81–90 of 100');

      // nothing wider than the screen; every pager and header button big enough for a finger
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      const small = await page.$$eval(`${t} button`, (bs) =>
        bs.map((b) => b.getBoundingClientRect()).filter((r) => r.width < 44 || r.height < 44),
      );
      expect(small).toEqual([]);
      await page.$eval(t, (e) => e.scrollIntoView());
      await page.screenshot({ path: `test-results/playground-table-${width}.png` }).catch(() => undefined);

      // a second question: its answer is added; the first answer is the same node, in the order and on the page it was
      const first = await page.$('.msg.bot');
      await ask(page, 'How many thefts were reported in 2019?', 2);
      const last = await page.textContent('.msg.bot:last-child .headline');
      expect(last).toMatch(/^Thefts in 2019/);
      expect(await first!.evaluate((n) => n.isConnected && n === document.querySelector('.msg.bot'))).toBe(true);
      expect(await first!.$eval('.pager .rows-note', (s) => s.textContent)).toBe('rows 81–90 of 100');
      expect(await first!.$eval('th:nth-child(1)', (s) => s.getAttribute('aria-sort'))).toBe('descending');
      // the one live region holds the new answer's headline, and nothing else
      await expect.poll(() => page.textContent('#announce')).toBe(last);
      expect(await page.$$eval('[aria-live], [role=log]', (ls) => ls.map((l) => l.id))).toEqual(['announce']);

      // the SQL disclosure: labelled SQL, with a marker that turns when it opens
      const summary = '.msg.bot:last-child summary';
      const marker = () => page.$eval(summary, (s) => getComputedStyle(s, '::before').content);
      expect(await page.textContent(summary)).toBe('SQL');
      expect(await marker()).toMatch(/^"▶"/);
      await page.focus(summary);
      await page.keyboard.press('Enter');
      expect(await page.$eval('.msg.bot:last-child details', (d) => (d as HTMLDetailsElement).open)).toBe(true);
      expect(await marker()).toMatch(/^"▼"/);
      await page.screenshot({ path: `test-results/playground-answers-${width}.png` }).catch(() => undefined);
      await page.close();
    });

    it(`at ${width} px: by keyboard, the skip link first, Enter on it to the question box; a thread opened by Enter or Space keeps the keyboard`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(server.url);
      const focused = () =>
        page.evaluate(() =>
          document.activeElement === document.body ? 'body' : document.activeElement?.id || document.activeElement?.tagName,
        );
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('skip');
      expect(await page.textContent('#skip')).toBe('Skip to the question box');
      // shown where the keyboard is
      const skip = await page.$eval('#skip', (a) => a.getBoundingClientRect().toJSON());
      expect(skip.top).toBeGreaterThanOrEqual(0);
      expect(skip.right).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `test-results/playground-skip-${width}.png` }).catch(() => undefined);
      await page.keyboard.press('Enter');
      expect(await focused()).toBe('question');
      await page.keyboard.type('help');
      await page.keyboard.press('Enter');
      await page.waitForSelector('.msg.bot .headline');
      expect(await focused()).toBe('question');

      // a second thread, by keyboard: the keyboard goes to its question box (on a phone the drawer, and its button, close)
      const drawer = async () => {
        if (width < 700) {
          await page.focus('#threads-toggle');
          await page.keyboard.press('Enter');
        }
      };
      await drawer();
      await page.focus('#new-thread');
      await page.keyboard.press('Enter');
      expect(await focused()).toBe('question');
      // back to the first thread with Enter, then to the second with Space: the keyboard lands on the thread's title
      for (const [n, key] of [
        [2, 'Enter'],
        [1, 'Space'],
      ] as const) {
        await drawer();
        await page.focus(`#threads li:nth-child(${n}) button`);
        await page.keyboard.press(key);
        expect(await page.getAttribute(`#threads li:nth-child(${n}) button`, 'aria-current')).toBe('true');
        expect(await focused()).toBe('thread-title');
        expect(await page.textContent('#thread-title')).toBe(await page.textContent(`#threads li:nth-child(${n}) button`));
        expect(await page.$eval('#thread-title', (h) => h.getBoundingClientRect().height)).toBeGreaterThan(0);
      }
      expect(await page.textContent('#thread-title')).toBe('New thread');
      await page.close();
    });
  }

  it('at 390 px: a wide table scrolls sideways in its own box, with a hint, and the extra tables sort and page too', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(server.url);
    const columns = ['community area', 'district', 'ward', 'beat', 'primary type', 'description', 'location description', 'incidents'];
    const rows = Array.from({ length: 30 }, (_, i) => [
      `Area ${i + 1}`,
      (i * 7) % 25,
      (i * 11) % 50,
      `0${(i * 13) % 99}`,
      i % 2 ? 'THEFT' : 'BATTERY',
      'OVER $500 FROM BUILDING',
      'RESIDENCE PORCH/HALLWAY',
      (i * 37) % 101,
    ]);
    const payload = {
      answer: {
        kind: 'result',
        route: 'sql',
        trace: [],
        headline: 'A wide table',
        narration: 'A wide table',
        sql: ['SELECT 1'],
        table: { columns, rows, rowCount: 30, truncated: false },
        extraTables: [
          {
            title: 'By area',
            table: { columns: ['area', 'n'], rows: rows.map((r, i) => [r[0], i === 3 ? null : r[7]]), rowCount: 30, truncated: false },
          },
        ],
        assumptions: [],
        notes: [],
      },
      chartUrl: null,
      exportUrl: null,
      sqlShown: [],
      answerId: null,
    };
    await page.route('**/api/ask', (route) =>
      route.fulfill({ status: 200, contentType: 'text/event-stream', body: `event: answer\ndata: ${JSON.stringify(payload)}\n\n` }),
    );
    await ask(page, 'a wide one', 1);
    const [main, extra] = ['.data-table >> nth=0', '.data-table >> nth=1'];
    expect(await page.isVisible(`${main} >> .scroll-hint`)).toBe(true);
    const box = await page.$eval('.data-table .table-wrap', (w) => ({
      scrolls: w.scrollWidth > w.clientWidth,
      right: w.getBoundingClientRect().right,
      tabIndex: w.tabIndex,
      label: w.getAttribute('aria-label'),
    }));
    expect(box).toEqual({ scrolls: true, right: expect.any(Number), tabIndex: 0, label: 'Table, scrolls sideways' });
    expect(box.right).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // the narrow extra table fits: no hint, no Tab stop
    expect(await page.isVisible(`${extra} >> .scroll-hint`)).toBe(false);
    expect(await page.$eval('.msg.bot .data-table ~ .data-table .table-wrap', (w) => w.tabIndex)).toBe(-1);
    // the extra table sorts (numbers as numbers) and pages
    const extraRows = rows.map((r, i) => [r[0], i === 3 ? null : r[7]]);
    await page.click(`${extra} >> th >> nth=1 >> button`);
    await page.click(`${extra} >> th >> nth=1 >> button`);
    const desc = sortedBy(extraRows, 1, -1);
    expect(await shown(page, '.msg.bot .data-table ~ .data-table')).toEqual(desc.slice(0, 10).map(asText));
    await page.click(`${extra} >> .page-next`);
    expect(await page.textContent(`${extra} >> .pager .rows-note`)).toBe('rows 11–20 of 30');
    expect(await shown(page, '.msg.bot .data-table ~ .data-table')).toEqual(desc.slice(10, 20).map(asText));
    await page.click(`${extra} >> .page-next`);
    const lastPage = await shown(page, '.msg.bot .data-table ~ .data-table');
    expect(lastPage).toEqual(desc.slice(20, 30).map(asText));
    expect(lastPage.at(-1)).toEqual(['Area 4', '']); // the empty cell last
    // the main one by text, digits in it as numbers: Area 2 before Area 10
    await page.click(`${main} >> th >> nth=0 >> button`);
    expect((await shown(page, '.msg.bot .data-table')).map((r) => r[0])).toEqual(Array.from({ length: 10 }, (_, i) => `Area ${i + 1}`));
    await page.$eval('.data-table', (e) => e.scrollIntoView());
    await page.screenshot({ path: 'test-results/playground-wide-table-390.png' }).catch(() => undefined);
    await page.close();
  });
});
