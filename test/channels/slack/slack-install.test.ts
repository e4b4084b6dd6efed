// "Add to Slack" costs nothing until Slack sends the admin back: the state of
// /slack/install is signed and bound to the browser's cookie, so any number of
// page loads write nothing; the callback checks the signature, the cookie and
// the expiry before it writes the state's nonce, once (a replay is refused),
// and is limited per address. Real HTTP, real PostgreSQL, the fake Slack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { clientOptionsOf } from '../../../src/channels/slack/slack-app.js';
import { createSlackInstaller } from '../../../src/channels/slack/slack-install.js';
import { SignedStateStore } from '../../../src/channels/slack/installation-store.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startFakeSlack, type FakeSlack } from '../../helpers/fake-slack.js';

const KEY = Buffer.alloc(32, 9).toString('base64');
let db: TestDatabase;
let slack: FakeSlack;
let server: RunningServer;

const rows = async (table: string) => (await db.pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

async function installPage() {
  const page = await fetch(`${server.url}/slack/install`, { redirect: 'manual' });
  const html = await page.text();
  const cookie = page.headers.get('set-cookie')!.split(';')[0];
  const authorize = new URL(/<a class="add" href="([^"]+)"/.exec(html)![1].replace(/&#38;/g, '&'));
  return { status: page.status, cookie, state: authorize.searchParams.get('state')! };
}

async function callback(code: string, state: string, cookie?: string) {
  const back = await fetch(`${server.url}/slack/oauth_redirect?code=${code}&state=${encodeURIComponent(state)}`, {
    headers: cookie ? { cookie } : {},
  });
  return { status: back.status, html: await back.text(), retryAfter: back.headers.get('retry-after') };
}

beforeAll(async () => {
  db = await createTestDatabase();
  slack = await startFakeSlack();
  const config = loadConfig({
    SLACK_CLIENT_ID: slack.oauthApp.clientId,
    SLACK_CLIENT_SECRET: slack.oauthApp.clientSecret,
    SLACK_SIGNING_SECRET: 'install-signing-secret',
    SLACK_TOKEN_KEYS: `k1:${KEY}`,
    SLACK_API_URL: slack.apiUrl,
    SLACK_AUTHORIZE_URL: 'https://slack.test/oauth/v2/authorize',
  });
  const logger = createMemoryLogger();
  const installer = createSlackInstaller({
    oauth: config.slack!.oauth!,
    pool: db.pool,
    logger,
    clientOptions: clientOptionsOf(config.slack!),
    callbacksPerMinute: 8,
  });
  server = await startHttpServer('127.0.0.1', 0, [installer.route], logger);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await slack?.close();
  await db?.drop();
});

describe('Add to Slack', () => {
  it('1,000 loads of /slack/install write nothing: each has its own state, bound to its cookie', async () => {
    const states = new Set<string>();
    for (let i = 0; i < 1_000; i += 50) {
      const pages = await Promise.all(Array.from({ length: 50 }, () => installPage()));
      for (const p of pages) {
        expect(p.status).toBe(200);
        expect(p.cookie).toBe(`slack-app-oauth-state=${p.state}`);
        states.add(p.state);
      }
    }
    expect(states.size).toBe(1_000);
    expect(await rows('slack_oauth_states')).toBe(0);
    expect(await rows('slack_installations')).toBe(0);
  }, 60_000);

  it('the callback installs once with its own cookie; forged, foreign, cookieless and replayed states write nothing', async () => {
    const a = await installPage();
    // a state whose payload was changed (a later expiry, other options) keeps its old signature: refused
    const [payload, mac] = a.state.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const altered = `${Buffer.from(JSON.stringify({ ...decoded, e: decoded.e + 86_400_000 })).toString('base64url')}.${mac}`;
    slack.grants.set('code-forged', { teamId: 'TF', teamName: 'Forged', botToken: 'xoxb-forged', installer: 'UF' });
    const forged = await callback('code-forged', altered, `slack-app-oauth-state=${altered}`);
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('was not made by this server');
    // a state signed under another app's secret
    const foreign = await new SignedStateStore(db.pool, 'another-client-secret').generateStateParam({ scopes: ['chat:write'] }, new Date());
    expect((await callback('code-forged', foreign, `slack-app-oauth-state=${foreign}`)).html).toContain('was not made by this server');
    // a genuine state without the browser's cookie (a link planted in an admin's browser: CSRF), or with another's
    expect((await callback('code-forged', a.state)).html).toContain('Data Desk was not installed');
    const b = await installPage();
    expect((await callback('code-forged', a.state, b.cookie)).html).toContain('Data Desk was not installed');
    expect(await rows('slack_oauth_states')).toBe(0);
    expect(await rows('slack_installations')).toBe(0);

    slack.grants.set('code-A', { teamId: 'TA', teamName: 'Alpha Corp', botToken: 'xoxb-alpha', installer: 'UADMIN' });
    const done = await callback('code-A', a.state, a.cookie);
    expect(done.status).toBe(200);
    expect(done.html).toContain('Data Desk is now in Alpha Corp');
    expect(await rows('slack_oauth_states')).toBe(1);
    // the same redirect again: used already
    slack.grants.set('code-again', { teamId: 'TX', teamName: 'Intruder', botToken: 'xoxb-intruder', installer: 'UX' });
    const replay = await callback('code-again', a.state, a.cookie);
    expect(replay.status).toBe(400);
    expect(replay.html).toContain('was used already');
    expect((await db.pool.query('SELECT install_key FROM slack_installations')).rows).toEqual([{ install_key: 'TA' }]);
  });

  it('a state is good for ten minutes; a used nonce is kept only until then', async () => {
    const store = new SignedStateStore(db.pool, slack.oauthApp.clientSecret);
    const then = new Date(Date.now() - 11 * 60_000);
    const old = await store.generateStateParam({ scopes: ['chat:write'] }, then);
    await expect(store.verifyStateParam(new Date(), old)).rejects.toThrow(/expired \(10 minutes\)/);
    const fresh = await store.generateStateParam({ scopes: ['chat:write'] }, new Date());
    expect(await store.verifyStateParam(new Date(), fresh)).toEqual({ scopes: ['chat:write'] });
    await expect(store.verifyStateParam(new Date(), fresh)).rejects.toThrow(/used already/);
    await db.pool.query(`UPDATE slack_oauth_states SET expires_at = now() - interval '1 second'`);
    await store.verifyStateParam(new Date(), await store.generateStateParam({ scopes: [] }, new Date()));
    expect(await rows('slack_oauth_states')).toBe(1);
  });

  it('callbacks are limited per address: 429 with Retry-After, and nothing written', async () => {
    const before = await rows('slack_oauth_states');
    let limited: Awaited<ReturnType<typeof callback>> | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const p = await installPage();
      const r = await callback(`code-none-${i}`, p.state, p.cookie);
      if (r.status === 429) limited = r;
    }
    expect(limited?.html).toContain('Too many install attempts');
    expect(limited?.retryAfter).toMatch(/^\d+$/);
    expect(await rows('slack_oauth_states')).toBeLessThanOrEqual(before + 8);
  });
});
