// A backtest run's link (issue 36, part 5): with PUBLIC_BASE_URL a backtest
// answer's run id comes with `${PUBLIC_BASE_URL}/runs/<ID>`; that page says only
// that the run exists (runs are per workspace), and in Slack the link unfurls
// (link_shared -> chat.unfurl, against the fake over real HTTP) into a card of
// the run's parameters and KPIs for the workspace that owns the run alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import { runBacktest, type BacktestDeps } from '../../../src/agents/backtest/agent.js';
import { BacktestRuns } from '../../../src/backtest/run-id.js';
import { createSlackApp } from '../../../src/channels/slack/slack-app.js';
import { loadConfig } from '../../../src/config/env.js';
import type { Answer } from '../../../src/core/answer.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { runRoutes } from '../../../src/server/run-routes.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadStocks } from '../../helpers/stock-data.js';
import { testDesk } from '../../helpers/desk.js';
import { testJobs } from '../../helpers/jobs.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { slackSignature, startFakeSlack, type FakeSlack, type SlackCall } from '../../helpers/fake-slack.js';
import { blockKitProblems, unfurlProblems } from '../../helpers/block-kit-limits.js';

const SECRET = 'test-signing-secret';
const BASE = 'https://datadesk.example.com';
let db: TestDatabase;
let slack: FakeSlack;
let deps: BacktestDeps;
const servers: RunningServer[] = [];
const runtimes: Jobs[] = [];

const notes = (a: Answer) => (a.kind === 'result' ? a.notes.join('\n') : `(${a.kind}) ${JSON.stringify(a)}`);
const idIn = (a: Answer) => /Run id ([0-9A-Z]{10}):/.exec(notes(a))?.[1];

beforeAll(async () => {
  db = await createTestDatabase();
  await loadStocks(db.pool, 4, '2022-01-04', '2023-12-29');
  slack = await startFakeSlack();
  deps = { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger(), runs: new BacktestRuns(db.pool) };
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const j of runtimes) await j.stop();
  await slack?.close();
  await db?.drop();
});

const RULES = '600519 2022..2023 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: sharpe';

describe('a backtest run link', () => {
  let id: string;

  it('ends a backtest answer with PUBLIC_BASE_URL set, and not without it', async () => {
    const linked = await runBacktest(RULES, { ...deps, workspace: 'T1', publicBaseUrl: BASE });
    id = idIn(linked.answer)!;
    expect(id).toMatch(/^[0-9A-Z]{10}$/);
    expect(notes(linked.answer)).toContain(`/backtest rerun ${id} (or datadesk backtest run --id ${id}) repeats it`);
    expect(notes(linked.answer)).toContain(`Its parameters: ${BASE}/runs/${id}`);
    const plain = await runBacktest(RULES, { ...deps, workspace: 'T1' });
    expect(notes(plain.answer)).not.toContain('/runs/');
    // through the desk, as serve wires it (create-desk.ts passes PUBLIC_BASE_URL)
    const { desk } = testDesk(db, { publicBaseUrl: BASE });
    const viaDesk = await desk.answer({ platform: 'slack', threadId: 't', channel: 'C1', workspace: 'T1', kind: 'backtest', text: RULES });
    expect(notes(viaDesk)).toContain(`${BASE}/runs/${id}`);
  });

  it('its page says only that the run exists and how to see it in its workspace; no parameters, no KPIs', async () => {
    const server = await startHttpServer('127.0.0.1', 0, [runRoutes(new BacktestRuns(db.pool), { perMinute: 100 })], createMemoryLogger());
    servers.push(server);
    const page = await fetch(`${server.url}/runs/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain(`Backtest run ${id}`);
    expect(html).toContain(`/backtest rerun ${id}`);
    // nothing of the run itself: not its tickers, rules, KPI or engine
    for (const secret of ['600519', 'MA(5)', 'RSI', 'sharpe', 'Sharpe', 'engine-']) expect(html).not.toContain(secret);
    // the same in lower case finds the same run
    expect((await fetch(`${server.url}/runs/${id.toLowerCase()}`)).status).toBe(200);
    const unknown = await fetch(`${server.url}/runs/ZZZZZZZZZZ`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('No backtest run ZZZZZZZZZZ');
    expect((await fetch(`${server.url}/runs/not-a-run`)).status).toBe(404);
    expect((await fetch(`${server.url}/runs/${id}`, { method: 'POST' })).status).toBe(404); // not this route's: the server's 404
  });

  async function slackBot() {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      PUBLIC_BASE_URL: BASE,
    });
    const { desk, logger } = testDesk(db);
    const jobs = await testJobs(db, desk, logger, {});
    runtimes.push(jobs);
    const app = createSlackApp({ config, desk, readPool: db.pool, writePool: db.pool, logger, queue: jobs.queue });
    const server = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
    servers.push(server);
    return server;
  }

  let seq = 0;
  /** Slack's link_shared for these links (posted in C1, or typed in the composer), recorded as shared on the fake. */
  async function linkShared(server: RunningServer, urls: string[], composer = false) {
    const ts = `1820000${String(++seq).padStart(3, '0')}.000100`;
    const unfurlId = `C1.${ts}.unfurl${seq}`;
    slack.sharedLinks.set(composer ? unfurlId : `C1:${ts}`, urls);
    const body = JSON.stringify({
      token: 'x',
      team_id: 'T1',
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: `EvLink${seq}`,
      event_time: 1,
      event: {
        type: 'link_shared',
        channel: composer ? 'COMPOSER' : 'C1',
        is_bot_user_member: true,
        user: 'U1',
        message_ts: composer ? unfurlId : ts,
        unfurl_id: unfurlId,
        source: composer ? 'composer' : 'conversations_history',
        links: urls.map((url) => ({ url, domain: new URL(url).hostname })),
        event_ts: ts,
      },
      authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
    });
    const res = await fetch(`${server.url}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...slackSignature(SECRET, body) },
      body,
    });
    expect(res.status).toBe(200);
    return { ts, unfurlId };
  }

  const unfurlCalls = (after: number) => slack.calls.slice(after).filter((c) => c.method === 'chat.unfurl');
  const text = (c: SlackCall) => JSON.stringify(c.args.unfurls);

  it('unfurls in Slack into the run’s parameters and KPIs for the workspace that owns it, and says nothing of another’s', async () => {
    // a run of another workspace, and one of T1's own
    const other = await runBacktest('600519 2022..2023 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: return', {
      ...deps,
      workspace: 'T2',
    });
    const otherId = idIn(other.answer)!;
    const server = await slackBot();
    const mine = `${BASE}/runs/${id}`;
    const theirs = `${BASE}/runs/${otherId}`;
    const before = slack.calls.length;
    const { ts } = await linkShared(server, [mine, theirs, 'https://elsewhere.example.org/runs/ABCDEFGHJK', `${BASE}/exports/x.csv`]);
    const call = await slack.waitFor((c) => c.method === 'chat.unfurl' && c.args.ts === ts);
    expect(call.args).toMatchObject({ channel: 'C1', ts });
    // only T1's run: another workspace's run is left as Slack shows it
    expect(Object.keys(call.args.unfurls as object)).toEqual([mine]);
    expect(unfurlProblems(call.args.unfurls)).toEqual([]);
    const blocks = (call.args.unfurls as Record<string, { blocks: unknown[] }>)[mine].blocks;
    expect(blockKitProblems({ text: 'unfurl', blocks })).toEqual([]);
    const card = text(call);
    for (const part of [
      `Backtest run ${id}`,
      '600519', // the tickers
      'MA(5) crosses above MA(20)', // the request as read
      '2022-01-01 to 2023-12-31', // the window
      'Sharpe (ranked by)',
      'Max drawdown',
      'engine-',
      `/backtest rerun ${id}`,
    ])
      expect(card).toContain(part);
    expect(card).not.toContain(otherId);
    // the fake answered ok: the call's arguments are what Slack takes
    expect(unfurlCalls(before)).toHaveLength(1);

    // only another workspace's run (or nothing of ours): no call at all
    const quiet = slack.calls.length;
    await linkShared(server, [theirs, 'https://elsewhere.example.org/x']);
    await new Promise((r) => setTimeout(r, 300));
    expect(unfurlCalls(quiet)).toEqual([]);

    // typed in the composer, before it is posted: named by its unfurl id and source
    const { unfurlId } = await linkShared(server, [mine], true);
    const preview = await slack.waitFor((c) => c.method === 'chat.unfurl' && c.args.unfurl_id === unfurlId);
    expect(preview.args).toMatchObject({ unfurl_id: unfurlId, source: 'composer' });
    expect(preview.args.channel).toBeUndefined();
  });

  it('the fake refuses chat.unfurl as Slack does: a target half given, a link not shared, a card over the limits', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    slack.sharedLinks.set('C9:1.000100', ['https://datadesk.example.com/runs/AAAAAAAAAA']);
    const card = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x' } }] };
    const refused = (args: Record<string, unknown>) =>
      client.apiCall('chat.unfurl', args).then(
        () => 'ok',
        (e: { data?: { error?: string } }) => e.data?.error,
      );
    expect(await refused({ channel: 'C9', ts: '1.000100', unfurls: { 'https://datadesk.example.com/runs/AAAAAAAAAA': card } })).toBe('ok');
    expect(await refused({ channel: 'C9', unfurls: { 'https://datadesk.example.com/runs/AAAAAAAAAA': card } })).toBe('missing_ts');
    expect(await refused({ unfurl_id: 'u', unfurls: { 'https://datadesk.example.com/runs/AAAAAAAAAA': card } })).toBe('missing_source');
    expect(await refused({ channel: 'C9', ts: '1.000100' })).toBe('missing_unfurls');
    expect(await refused({ channel: 'C9', ts: '1.000100', unfurls: { 'https://datadesk.example.com/runs/BBBBBBBBBB': card } })).toBe(
      'cannot_unfurl_url',
    );
    const tooMany = { blocks: Array.from({ length: 51 }, () => card.blocks[0]) };
    expect(await refused({ channel: 'C9', ts: '1.000100', unfurls: { 'https://datadesk.example.com/runs/AAAAAAAAAA': tooMany } })).toBe(
      'invalid_blocks',
    );
    expect(unfurlProblems({ 'https://x.example/runs/A': { blocks: [] } })).toEqual(['unfurls[https://x.example/runs/A]: no blocks']);
  });
});
