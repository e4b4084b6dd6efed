// "Add to Slack" over plain http (issue 36): the install's state cookie is
// `Secure`, which a browser drops over http, so the install used to fail at
// Slack's redirect back with "The state parameter is not for this browser
// session". Now: over http from anywhere but this machine both pages say that
// https is needed, before any state is handed out; on localhost the cookie goes
// without `Secure` and the install completes; behind https (a proxy's
// X-Forwarded-Proto, or PUBLIC_BASE_URL's host) nothing changes.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { clientOptionsOf } from '../../../src/channels/slack/slack-app.js';
import { createSlackInstaller } from '../../../src/channels/slack/slack-install.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startFakeSlack, type FakeSlack } from '../../helpers/fake-slack.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
let db: TestDatabase;
let slack: FakeSlack;
let server: RunningServer;
const logger = createMemoryLogger();

/** A GET with the headers a browser or a proxy would send (fetch may not set Host). */
function get(path: string, headers: Record<string, string | undefined>): Promise<{ status: number; cookie?: string; html: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
      let html = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (html += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, cookie: res.headers['set-cookie']?.[0], html }));
    });
    req.on('error', reject);
  });
}

const stateOf = (html: string) => new URL(/<a class="add" href="([^"]+)"/.exec(html)![1].replace(/&#38;/g, '&')).searchParams.get('state')!;

beforeAll(async () => {
  db = await createTestDatabase();
  slack = await startFakeSlack();
  const config = loadConfig({
    SLACK_CLIENT_ID: slack.oauthApp.clientId,
    SLACK_CLIENT_SECRET: slack.oauthApp.clientSecret,
    SLACK_SIGNING_SECRET: 'http-signing-secret',
    SLACK_TOKEN_KEYS: `k1:${KEY}`,
    SLACK_API_URL: slack.apiUrl,
    SLACK_AUTHORIZE_URL: 'https://slack.test/oauth/v2/authorize',
  });
  const installer = createSlackInstaller({
    oauth: config.slack!.oauth!,
    pool: db.pool,
    logger,
    clientOptions: clientOptionsOf(config.slack!),
    // what serve passes when PUBLIC_BASE_URL=https://desk.example.com
    redirectUri: 'https://desk.example.com/slack/oauth_redirect',
  });
  server = await startHttpServer('127.0.0.1', 0, [installer.route], logger);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await slack?.close();
  await db?.drop();
});

describe('Add to Slack over http', () => {
  it('plain http at a public name: both pages say https is needed, hand out no state, and the log says it once', async () => {
    for (const path of ['/slack/install', '/slack/oauth_redirect?code=c&state=s']) {
      for (const headers of [{ host: 'bot.lan:3000' }, { host: 'desk.example.com', 'x-forwarded-proto': 'http' }]) {
        const page = await get(path, headers);
        expect(page.status).toBe(400);
        expect(page.html).toContain('Installing Data Desk needs https');
        expect(page.html).toContain('PUBLIC_BASE_URL');
        expect(page.cookie).toBeUndefined();
      }
    }
    expect(logger.lines.filter((l) => l.includes('opened over plain http'))).toHaveLength(1);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM slack_oauth_states')).rows[0].n).toBe(0);
  });

  it('behind https (the proxy says so, or the host is PUBLIC_BASE_URL’s) the cookie stays Secure', async () => {
    for (const headers of [
      { host: 'bot.lan', 'x-forwarded-proto': 'https' },
      { host: 'bot.lan', forwarded: 'for=192.0.2.1;proto=https' },
      { host: 'desk.example.com' },
    ]) {
      const page = await get('/slack/install', headers);
      expect(page.status).toBe(200);
      expect(page.cookie).toMatch(/^slack-app-oauth-state=[^;]+; Secure; HttpOnly; Path=\/; Max-Age=600$/);
    }
  });

  it('on localhost over http the cookie goes without Secure, and the install completes', async () => {
    const { port } = new URL(server.url);
    for (const host of [`127.0.0.1:${port}`, `[::1]:${port}`]) {
      const page = await get('/slack/install', { host });
      expect(page.status).toBe(200);
      expect(page.cookie).toMatch(/^slack-app-oauth-state=[^;]+; HttpOnly; Path=\/; Max-Age=600$/);
    }
    const page = await get('/slack/install', { host: `localhost:${port}` });
    const state = stateOf(page.html);
    expect(page.cookie!.split(';')[0]).toBe(`slack-app-oauth-state=${state}`);
    slack.grants.set('code-local', { teamId: 'TL', teamName: 'Local Corp', botToken: 'xoxb-local', installer: 'UL' });
    const back = await get(`/slack/oauth_redirect?code=code-local&state=${encodeURIComponent(state)}`, {
      host: `localhost:${port}`,
      cookie: page.cookie!.split(';')[0],
    });
    expect(back.status).toBe(200);
    expect(back.html).toContain('Data Desk is now in Local Corp');
    expect(back.cookie).not.toMatch(/Secure/);
  });
});
