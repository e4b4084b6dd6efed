// A trader's /backtest walk-through in Slack, over real HTTP: the slash command
// POSTed signed to the bot's /slack/events, Bolt's client pointed at the fake
// Slack Web API, the real agent on a small generated stocks database. What
// lands in the channel is checked as a trader reads it: the headline, the KPIs,
// the tearsheet table, the assumptions naming each rule, the chart, and every
// message within Block Kit's limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createSlackApp } from '../../../src/channels/slack/slack-app.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { testJobs } from '../../helpers/jobs.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadStocks } from '../../helpers/stock-data.js';
import { testDesk } from '../../helpers/desk.js';
import { botClient, slackSignature, startFakeSlack, type FakeSlack } from '../../helpers/fake-slack.js';
import { blockKitProblems } from '../../helpers/block-kit-limits.js';

const SECRET = 'walkthrough-signing-secret';
let db: TestDatabase;
let slack: FakeSlack;
let server: RunningServer;
let jobs: Jobs;

beforeAll(async () => {
  db = await createTestDatabase();
  // eight tickers over 2021-2022: Kweichow Moutai, Ping An Bank, China Merchants Bank, Ping An Insurance, ...
  await loadStocks(db.pool, 8, '2021-01-04', '2022-12-30');
  slack = await startFakeSlack();
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    RATE_LIMIT_USER_PER_MINUTE: '100',
  });
  const { desk, logger } = testDesk(db, { statementTimeoutMs: 30_000 });
  jobs = await testJobs(db, desk, logger, { slack: botClient(config) });
  const app = createSlackApp({ config, desk, readPool: db.pool, writePool: db.pool, logger, queue: jobs.queue });
  server = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await jobs?.stop();
  await slack?.close();
  await db?.drop();
});

type Block = {
  type: string;
  text?: string | { text: string };
  elements?: { text?: string }[];
  fields?: { text: string }[];
  rows?: { text?: string }[][];
};

/** Types /backtest TEXT in channel `channel` as Slack sends it (< and > as entities); the thread's messages once answered. */
async function backtest(text: string, channel: string) {
  const typed = text.replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const form = new URLSearchParams({
    command: '/backtest',
    text: typed,
    user_id: 'U7',
    channel_id: channel,
    team_id: 'T1',
    response_url: 'http://127.0.0.1:1/r',
    // Slack's trigger_id is the delivery's key: one per command typed
    trigger_id: `trigger-${channel}`,
  }).toString();
  const res = await fetch(`${server.url}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...slackSignature(SECRET, form) },
    body: form,
  });
  expect(res.status).toBe(200);
  const parent = await slack.waitFor((c) => c.method === 'chat.postMessage' && c.args.channel === channel && !c.args.thread_ts);
  expect(parent.args.text).toBe(`<@U7> asked for a backtest: \`${typed}\``);
  const parentTs = slack.messages.find((m) => m.channel === channel && !m.thread_ts)!.ts;
  // the answer: the placeholder updated with blocks, then the chart uploaded into the thread
  await slack.waitFor(
    (c) => c.method === 'chat.update' && c.args.channel === channel && Boolean(c.args.blocks) && !String(c.args.text).startsWith(':'),
    120_000,
  );
  const upload = await slack.waitFor((c) => c.method === 'files.completeUploadExternal' && c.args.channel_id === channel, 60_000);
  expect(upload.args.thread_ts).toBe(parentTs);
  const thread = slack.messages.filter((m) => m.channel === channel && m.thread_ts === parentTs && m.blocks);
  const blocks = thread.flatMap((m) => m.blocks as Block[]);
  // everything a trader can read, one line per text
  const lines = blocks
    .flatMap((b) => [
      typeof b.text === 'string' ? b.text : (b.text?.text ?? ''),
      ...(b.fields ?? []).map((f) => f.text),
      ...(b.elements ?? []).map((e) => e.text ?? ''),
      // Slack's own table: one line a row
      ...(b.rows ?? []).map((r) => r.map((c) => c.text ?? '').join(' | ')),
    ])
    .filter(Boolean);
  return { thread, blocks, text: lines.join('\n'), upload };
}

describe('a trader in Slack', () => {
  it('a portfolio with weights, monthly rebalancing, a stop, a volume cap, the limits and the costs', async () => {
    const { thread, text, upload } = await backtest(
      'portfolio 600519,600036,601318 2021..2022 weights: 50,30,20 rebalance: monthly stop: 8% volume-cap: 5% limits: on costs: china',
      'C31',
    );
    // one message, within Block Kit's limits
    expect(thread).toHaveLength(1);
    for (const m of thread) expect(blockKitProblems({ text: m.text, blocks: m.blocks }), m.ts).toEqual([]);
    // the headline: what ran and its numbers
    expect(text).toMatch(
      /^\*Portfolio of 3 \(rebalanced monthly, with A-share costs\): Sharpe -?\d+\.\d\d, return -?\d+\.\d\d%, max drawdown \d+\.\d\d%\*/,
    );
    const headline = /Sharpe (-?[\d.]+), return (-?[\d.]+%), max drawdown ([\d.]+%)/.exec(text)!;
    // the KPIs in Slack's own table, the same numbers as the headline
    expect(text).toContain(`Sharpe | ${headline[1]}`);
    expect(text).toContain(`Return | ${headline[2]}`);
    expect(text).toContain(`Max drawdown | ${headline[3]}`);
    // a KPI table is no query result: no row count under it
    expect(text).not.toMatch(/^\d+ rows?$/m);
    // the members at their weights, and 24 monthly rebalances over two years
    expect(text).toMatch(/600519 +Kweichow Moutai Co., Ltd. +50\.0%/);
    expect(text).toMatch(/601318 +Ping An Insurance .* +20\.0%/);
    expect(text).toContain('showing 24 of 24 rows');
    // the market beside it, titled as the other tables are
    expect(text).toMatch(/\*Portfolio of 3 against the market\*/);
    // the tearsheet: its summary whole (no cell cut), the monthly returns by year, the drawdown periods
    expect(text).toMatch(/\*Tearsheet of portfolio of 3\*/);
    expect(text).toMatch(/Exposure \(mean, at the close\) +\d+\.\d% of the equity invested\n/);
    expect(text).toMatch(/Turnover \(a year\) +[\d.]+× the mean equity\n/);
    expect(text).toMatch(/Worst drawdown +\d+\.\d\d%, 20\d\d-\d\d-\d\d to 20\d\d-\d\d-\d\d\n/);
    expect(text).toMatch(/Monte Carlo drawdown \(between sales\) +worse than 30% in \d+\.\d% of 1,000/);
    expect(text).not.toMatch(/\w…\n/);
    expect(text).toMatch(/Year +Jan +Feb +Mar +Apr +May +Jun +Jul +Aug +Sep +Oct +Nov +Dec +Year total\n[- ]+\n2021 .*\n2022 /);
    expect(text).toMatch(/\*Drawdown periods of portfolio of 3 \(deepest first\)\*/);
    // the Monte Carlo line says nothing the reshuffles cannot change (the trades end in the same place in any order)
    expect(text).toMatch(/In 1,000 reshuffles of these \d+ trades/);
    expect(text).not.toMatch(/ended below the capital/);
    // the assumptions name every rule asked for, T+1 among them
    const assumptions = text.split('\n').find((l) => l.startsWith('Assumptions: '))!;
    expect(assumptions).toMatch(/stop-loss 8% below the average entry price/);
    expect(assumptions).toMatch(
      /volume cap: an order fills at most 5% of the day's volume \(whole lots\); the rest carries to the next day/,
    );
    expect(assumptions).toMatch(/no buy at the limit-up price, no sale at the limit-down price/);
    expect(assumptions).toMatch(/shares bought today not sold today \(T\+1\)/);
    expect(assumptions).toMatch(/weights 50 : 30 : 20; rebalanced on the first trading day of each month/);
    expect(assumptions).toMatch(/costs: china/);
    // what the rules did, in the narration
    expect(text).toMatch(/Exits: \d+ stop-loss/);
    // the chart, a PNG in the thread
    expect((upload.args.files as { title?: string }[])[0].title).toBeTruthy();
    expect(slack.uploads.at(-1)!.bytes.includes(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBe(true);
  }, 180_000);

  it('a single run with exits and its tearsheet', async () => {
    const { thread, text, upload } = await backtest(
      '600519 2021..2022 buy: RSI(14) < 45 sell: RSI(14) > 55 stop: 8% trail: 12% tearsheet: on',
      'C32',
    );
    expect(thread).toHaveLength(1);
    for (const m of thread) expect(blockKitProblems({ text: m.text, blocks: m.blocks }), m.ts).toEqual([]);
    expect(text).toMatch(/^\*600519 Kweichow Moutai Co., Ltd.: Sharpe (-?\d+\.\d\d) \(the default KPI; kpi: chooses another\)\*/);
    const sharpe = /: Sharpe (-?\d+\.\d\d)/.exec(text)![1];
    // the KPI row of Slack's table: the headline's Sharpe
    expect(text).toMatch(new RegExp(`\\n600519 \\| -?[\\d.]+% \\| [\\d.]+% \\| [\\d.]+% \\| ${sharpe.replace('.', '\\.')} \\|`));
    // the rules said, and what they did
    expect(text).toMatch(/exits: stop-loss 8% below the average entry price; trailing stop 12% below the highest close since entry/);
    expect(text).toMatch(/from the day after the buy \(T\+1\)/);
    expect(text).toMatch(/Exits: (\d+ stop-loss(es)?|none fired)/);
    // the tearsheet tables and the trades
    expect(text).toMatch(/\*Tearsheet of 600519\*/);
    expect(text).toMatch(/\*Monthly returns of 600519\*/);
    expect(text).toMatch(/\*Trades of 600519\*/);
    expect(text).not.toMatch(/\w…\n/);
    // the chart: a PNG in the thread
    expect(upload.args.channel_id).toBe('C32');
    expect(slack.uploads.at(-1)!.bytes.includes(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBe(true);
  }, 180_000);
});
