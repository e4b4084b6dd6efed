// One running app, two Slack workspaces: each installs it through "Add to
// Slack" (/slack/install, the fake's oauth.v2.access), asks, gives a 👍,
// subscribes a digest; nothing crosses between them, a replayed OAuth state
// is refused, tokens are sealed at rest, and uninstalling one leaves the
// other answering. Real HTTP throughout, real PostgreSQL.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createSlackApp, clientOptionsOf } from '../../../src/channels/slack/slack-app.js';
import { createSlackInstaller } from '../../../src/channels/slack/slack-install.js';
import { installedClients } from '../../../src/channels/slack/slack-clients.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { VerifiedStore } from '../../../src/verified/verified-store.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { testJobs } from '../../helpers/jobs.js';
import { slackSignature, startFakeSlack, type FakeSlack, type SlackCall } from '../../helpers/fake-slack.js';
import { pollUntil } from '../../helpers/wait.js';

const SECRET = 'workspaces-signing-secret';
const KEY = Buffer.alloc(32, 7).toString('base64');
let db: TestDatabase;
let slack: FakeSlack;
let server: RunningServer;
let jobs: Jobs;
let logger: ReturnType<typeof testDesk>['logger'];

const sign = (body: string) => slackSignature(SECRET, body);
const postEvent = (body: string, type = 'application/json') =>
  fetch(`${server.url}/slack/events`, { method: 'POST', headers: { 'content-type': type, ...sign(body) }, body }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

let seq = 0;
function mention(team: string, text: string, user: string) {
  const ts = `1810000${String(++seq).padStart(3, '0')}.000100`;
  const body = JSON.stringify({
    token: 'x',
    team_id: team,
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `EvWs${seq}`,
    event_time: 1,
    event: { type: 'app_mention', user, text: `<@UBOT> ${text}`, ts, channel: 'CSHARED', event_ts: ts },
    authorizations: [{ team_id: team, user_id: 'UBOT', is_bot: true }],
  });
  return { body, ts };
}

const answerIn = (ts: string) =>
  slack.waitFor(
    (c) => c.method === 'chat.update' && Boolean(c.args.blocks) && slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
    20_000,
  );
const textOf = (c: SlackCall) => JSON.stringify(c.args.blocks);

/** An admin's install: the Add to Slack page (its state and cookie), Slack's "Allow" (a code), the redirect back. */
async function install(teamId: string, teamName: string, botToken: string) {
  const page = await fetch(`${server.url}/slack/install`, { redirect: 'manual' });
  const html = await page.text();
  const cookie = page.headers.get('set-cookie')!.split(';')[0];
  const authorize = new URL(/<a class="add" href="([^"]+)"/.exec(html)![1].replace(/&#38;/g, '&'));
  const state = authorize.searchParams.get('state')!;
  const code = `code-${teamId}`;
  slack.grants.set(code, { teamId, teamName, botToken, installer: `UADMIN${teamId}` });
  const back = await fetch(`${server.url}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`, { headers: { cookie } });
  return { page, html, authorize, state, cookie, back, backHtml: await back.text() };
}

/** The app's settings for installs from many workspaces, against the fake Slack. */
const oauthConfig = () =>
  loadConfig({
    SLACK_CLIENT_ID: slack.oauthApp.clientId,
    SLACK_CLIENT_SECRET: slack.oauthApp.clientSecret,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_TOKEN_KEYS: `k1:${KEY}`,
    SLACK_API_URL: slack.apiUrl,
    SLACK_AUTHORIZE_URL: 'https://slack.test/oauth/v2/authorize',
    RATE_LIMIT_USER_PER_MINUTE: '100',
  });

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  slack = await startFakeSlack();
  const config = oauthConfig();
  const verified = new VerifiedStore(db.pool);
  const made = testDesk(db, { verified });
  const { desk } = made;
  logger = made.logger;
  const installer = createSlackInstaller({
    oauth: config.slack!.oauth!,
    pool: db.pool,
    logger,
    clientOptions: clientOptionsOf(config.slack!),
  });
  jobs = await testJobs(db, desk, logger, { slack: installedClients(installer.store, clientOptionsOf(config.slack!)) });
  // U-CUR is a curator in workspace TA only
  const app = createSlackApp({
    config,
    desk,
    readPool: db.pool,
    writePool: db.pool,
    logger,
    queue: jobs.queue,
    installer,
    feedback: { verified, curators: ['TA:U-CUR'] },
  });
  server = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await jobs?.stop();
  await slack?.close();
  await db?.drop();
});

describe('one app, two Slack workspaces', () => {
  it('each workspace installs through /slack/install; the token is sealed at rest; a replayed OAuth state is refused', async () => {
    const a = await install('TA', 'Alpha Corp', 'xoxb-alpha');
    expect(a.page.status).toBe(200);
    expect(a.html).toContain('Add Data Desk to your Slack workspace');
    expect(a.html).toContain('post answers and digests');
    expect(a.authorize.origin + a.authorize.pathname).toBe('https://slack.test/oauth/v2/authorize');
    expect(a.authorize.searchParams.get('client_id')).toBe(slack.oauthApp.clientId);
    expect(a.authorize.searchParams.get('scope')).toContain('app_mentions:read');
    expect(a.back.status).toBe(200);
    expect(a.backHtml).toContain('Data Desk is now in Alpha Corp');
    const b = await install('TB', 'Beta Ltd', 'xoxb-beta');
    expect(b.backHtml).toContain('Data Desk is now in Beta Ltd');

    // the same redirect again (a replay, a back button): the state was used, nothing is installed twice
    slack.grants.set('code-again', { teamId: 'TX', teamName: 'Intruder', botToken: 'xoxb-intruder', installer: 'UX' });
    const replay = await fetch(`${server.url}/slack/oauth_redirect?code=code-again&state=${encodeURIComponent(a.state)}`, {
      headers: { cookie: a.cookie },
    });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('Data Desk was not installed');
    const { rows } = await db.pool.query(`SELECT install_key, team_name, key_id, sealed FROM slack_installations ORDER BY install_key`);
    expect(rows.map((r) => [r.install_key, r.team_name, r.key_id])).toEqual([
      ['TA', 'Alpha Corp', 'k1'],
      ['TB', 'Beta Ltd', 'k1'],
    ]);
    for (const r of rows) expect((r.sealed as Buffer).toString('latin1')).not.toContain('xoxb-');
  });

  it("each workspace is answered with its own token; a curator's 👍 in one never makes a verified answer in the other", async () => {
    const question = 'How many robberies were reported in 2018?'; // not one of the shipped (shared) pairs
    const inA = mention('TA', question, 'U-CUR');
    expect((await postEvent(inA.body)).status).toBe(200);
    const answerA = await answerIn(inA.ts);
    expect(answerA.token).toBe('xoxb-alpha');
    const inB = mention('TB', question, 'U-B');
    await postEvent(inB.body);
    const answerB = await answerIn(inB.ts);
    expect(answerB.token).toBe('xoxb-beta');
    // every call for a thread used that thread's workspace token
    for (const c of slack.calls.filter((c) => c.args.thread_ts === inA.ts)) expect(c.token).toBe('xoxb-alpha');
    for (const c of slack.calls.filter((c) => c.args.thread_ts === inB.ts)) expect(c.token).toBe('xoxb-beta');

    // the same curator id reacting in TB is not a curator there; in TA they are
    const react = (team: string, user: string, ts: string, id: string) =>
      JSON.stringify({
        token: 'x',
        team_id: team,
        api_app_id: 'A1',
        type: 'event_callback',
        event_id: id,
        event_time: 1,
        event: {
          type: 'reaction_added',
          user,
          reaction: '+1',
          item: { type: 'message', channel: 'CSHARED', ts },
          item_user: 'UBOT',
          event_ts: '1',
        },
      });
    // a 👍 sent from TB on TA's answer (same channel id, shared): not found there, nothing stored
    await postEvent(react('TB', 'U-B', answerA.args.ts as string, 'EvReactCross'));
    await postEvent(react('TA', 'U-CUR', answerA.args.ts as string, 'EvReactA'));
    const promoted = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U-CUR');
    expect(promoted.args.text).toMatch(/is now a verified question/);
    expect(promoted.token).toBe('xoxb-alpha');
    const { rows: feedback } = await db.pool.query('SELECT workspace, user_id, verdict FROM feedback ORDER BY id');
    expect(feedback).toEqual([{ workspace: 'TA', user_id: 'U-CUR', verdict: 'up' }]);
    const { rows: pairs } = await db.pool.query(`SELECT workspace FROM verified_queries WHERE source = 'feedback'`);
    expect(pairs).toEqual([{ workspace: 'TA' }]);

    // asked again: verified in TA, an ordinary answer in TB
    const againA = mention('TA', 'how many ROBBERIES were reported in 2018', 'U-A2');
    await postEvent(againA.body);
    expect(textOf(await answerIn(againA.ts))).toContain("Verified answer: this question's query was checked by slack:U-CUR");
    const againB = mention('TB', 'how many ROBBERIES were reported in 2018', 'U-B2');
    await postEvent(againB.body);
    const plainB = await answerIn(againB.ts);
    expect(textOf(plainB)).not.toContain('Verified answer');
    expect(textOf(plainB)).toContain('Robberies in 2018');
  }, 60_000);

  it('a request from a workspace that never installed the app is acknowledged and dropped: no job, no reply, no retry', async () => {
    const stranger = mention('TZ', 'How many crimes were reported in 2019?', 'U-Z');
    const calls = slack.calls.length;
    expect((await postEvent(stranger.body)).status).toBe(200);
    expect(await jobs.deliveries.get(`slack:event:EvWs${seq}`)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(slack.calls.slice(calls).filter((c) => c.method.startsWith('chat.'))).toEqual([]);
    expect(logger.lines.some((l) => l.includes('a request from a workspace that has not installed the app was dropped'))).toBe(true);
  });

  it('when the installation cannot be looked up (its database is unreachable), Slack is answered 500, so it delivers the event again', async () => {
    const unreachable = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
    unreachable.on('error', () => undefined);
    const config = oauthConfig();
    const installer = createSlackInstaller({
      oauth: config.slack!.oauth!,
      pool: unreachable,
      logger,
      clientOptions: clientOptionsOf(config.slack!),
    });
    const { desk } = testDesk(db);
    const app = createSlackApp({ config, desk, readPool: db.pool, writePool: db.pool, logger, queue: jobs.queue, installer });
    const down = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
    try {
      const { body } = mention('TB', 'How many crimes were reported in 2019?', 'U-B');
      const res = await fetch(`${down.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sign(body) },
        body,
      });
      expect(res.status).toBe(500);
    } finally {
      await down.close();
      await unreachable.end();
    }
  });

  it('digests are kept per workspace: the same channel id and schedule in two workspaces are two digests, each listing its own', async () => {
    const command = (team: string, text: string) =>
      new URLSearchParams({
        command: '/datadesk',
        text,
        user_id: `U-${team}`,
        channel_id: 'CSHARED',
        team_id: team,
        response_url: 'http://127.0.0.1:1/r',
        trigger_id: 't',
      }).toString();
    for (const team of ['TA', 'TB']) {
      const res = await postEvent(command(team, 'digest weekly monday 09:00 America/Chicago'), 'application/x-www-form-urlencoded');
      expect(JSON.parse(res.text).text).toMatch(/^Digest #\d+/);
    }
    const { rows } = await db.pool.query('SELECT id, workspace FROM digest_subscriptions WHERE enabled ORDER BY workspace');
    expect(rows.map((r) => r.workspace)).toEqual(['TA', 'TB']);
    const listB = JSON.parse((await postEvent(command('TB', 'digest list'), 'application/x-www-form-urlencoded')).text).text as string;
    expect(listB).toContain(`#${rows[1].id}:`);
    expect(listB).not.toContain(`#${rows[0].id}:`);
    // TB cannot turn off TA's digest
    const off = JSON.parse((await postEvent(command('TB', `digest off ${rows[0].id}`), 'application/x-www-form-urlencoded')).text)
      .text as string;
    expect(off).toContain(`There is no digest #${rows[0].id} in this channel`);
  });

  it('uninstalling one workspace deletes its token and stops its digests; the other keeps answering', async () => {
    const uninstall = JSON.stringify({
      token: 'x',
      team_id: 'TA',
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: 'EvUninstallA',
      event_time: 1,
      event: { type: 'app_uninstalled' },
    });
    expect((await postEvent(uninstall)).status).toBe(200);
    const { rows } = await db.pool.query('SELECT install_key FROM slack_installations ORDER BY 1');
    expect(rows).toEqual([{ install_key: 'TB' }]);
    const { rows: digests } = await db.pool.query(
      'SELECT workspace, enabled, disabled_reason FROM digest_subscriptions ORDER BY workspace',
    );
    expect(digests).toEqual([
      { workspace: 'TA', enabled: false, disabled_reason: 'the app was uninstalled' },
      { workspace: 'TB', enabled: true, disabled_reason: null },
    ]);
    slack.revokedTokens.add('xoxb-alpha');
    // Slack rate-limits the answer's edit once (HTTP 429, Retry-After: 1): the client waits that long and sends it again
    slack.rateLimit.push({ method: 'chat.update', retryAfter: 1 });
    const stillB = mention('TB', 'How many burglaries were reported in 2019?', 'U-B3');
    await postEvent(stillB.body);
    const answer = await answerIn(stillB.ts);
    expect(answer.token).toBe('xoxb-beta');
    const refused = slack.calls.find((c) => c.limited)!;
    expect(refused).toMatchObject({ method: 'chat.update', token: 'xoxb-beta' });
    const retry = slack.calls.find(
      (c) => c.method === 'chat.update' && c.at > refused.at && c.args.ts === refused.args.ts && c.args.text === refused.args.text,
    )!;
    expect(retry.at - refused.at).toBeGreaterThanOrEqual(1_000);
    expect(textOf(answer)).toContain('Burglaries in 2019');
    await pollUntil(
      async () => ((await jobs.deliveries.get(`slack:event:EvWs${seq}`))?.status === 'answered' ? true : undefined),
      10_000,
      'the answer recorded',
    );
  }, 60_000);
});
