// Teams locally, as a developer tries it with the Bot Framework Emulator: the
// built `datadesk serve --no-worker` (the receiver) and `datadesk worker`
// processes with TEAMS_LOCAL=true and no app id, on real PostgreSQL; the
// Emulator's activities POSTed over real HTTP without any token; the answers
// going, unauthenticated, to a fake connector at the activity's serviceUrl.
import http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { startFakeConnector, type ConnectorCall, type FakeConnector } from '../../helpers/fake-connector.js';
import { tempDir } from '../../helpers/files.js';
import { processEnv, spawnServe, spawnWorker } from '../../helpers/serve.js';
import { loadConfig } from '../../../src/config/env.js';
import { teamsPackageInput } from '../../../src/cli/commands/teams-package.js';

let db: TestDatabase;
let connector: FakeConnector;
let serviceUrl: string;
const children: ChildProcess[] = [];
const homes: ReturnType<typeof tempDir>[] = [];

const env = (extra: Record<string, string> = {}) => processEnv(db.url, homes, { TEAMS_LOCAL: 'true', ...extra });

let seq = 0;
/** An activity as the Bot Framework Emulator (v4) sends it: channelId "emulator", a "|livechat" conversation, no Teams channelData. */
function emulatorMessage(text: string, extra: Record<string, unknown> = {}) {
  const id = `5d3c6f90-${String(++seq).padStart(4, '0')}-11ef-9b4e-0f1d2c3b4a59`;
  const conversationId = `c0ffee${seq}-1f2e-11ef-8a3b-2b1c0d9e8f7a|livechat`;
  return {
    id,
    conversationId,
    activity: {
      type: 'message',
      id,
      text,
      textFormat: 'plain',
      locale: 'en-US',
      timestamp: new Date().toISOString(),
      localTimestamp: new Date().toISOString(),
      channelId: 'emulator',
      serviceUrl,
      from: { id: 'a3f7e1c2-7d0b-4a9e-9c1f-1b2d3e4f5a6b', name: 'User', role: 'user' },
      recipient: { id: '9b8f2c40-1f2e-11ef-8a3b-2b1c0d9e8f7a', name: 'Bot', role: 'bot' },
      conversation: { id: conversationId },
      channelData: { clientActivityID: `${Date.now()}${seq}`, clientTimestamp: new Date().toISOString() },
      entities: [{ type: 'ClientCapabilities', requiresBotState: true, supportsListening: true, supportsTts: true }],
      ...extra,
    },
  };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const card = (c: ConnectorCall) =>
  ((c.activity.attachments as { contentType: string; content: Record<string, unknown> }[] | undefined) ?? [])[0];

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  connector = await startFakeConnector();
  // the Emulator's own address form: localhost, no trailing slash
  serviceUrl = connector.serviceUrl.replace('127.0.0.1', 'localhost').replace(/\/$/, '');
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await connector?.close();
  for (const h of homes) h.remove();
  await db?.drop();
});

describe('Teams in local mode (TEAMS_LOCAL=true, no app id)', () => {
  let receiver: Awaited<ReturnType<typeof spawnServe>>;

  it('a receiver and a separate worker answer an unauthenticated Emulator message; the console says so loudly', async () => {
    receiver = await spawnServe(env(), children, ['--no-worker']);
    const worker = await spawnWorker(env(), children);
    expect(receiver.log()).toContain(
      `TEAMS RUNS UNAUTHENTICATED, FOR LOCAL TESTING (TEAMS_LOCAL=true, no MICROSOFT_APP_ID): ${receiver.url}/api/messages`,
    );
    expect(receiver.log()).toMatch(/warn: Teams: PUBLIC_BASE_URL is not set .* the Emulator on this machine can load but Teams could not/);
    expect(worker.log()).toContain('Teams: local mode (TEAMS_LOCAL=true, no MICROSOFT_APP_ID)');
    // the playground stays: local Teams is not a configured chat platform
    expect((await fetch(`${receiver.url}/`)).status).toBe(200);
    // the manifest's default privacy and terms links are real pages of the bot
    const privacy = await fetch(`${receiver.url}/teams/privacy`);
    expect(privacy.status).toBe(200);
    expect(await privacy.text()).toContain('has not published a privacy statement of their own (they can, with TEAMS_PRIVACY_URL)');
    expect((await fetch(`${receiver.url}/teams/terms`)).status).toBe(200);

    const hello = emulatorMessage('', {
      type: 'conversationUpdate',
      text: undefined,
      membersAdded: [{ id: 'a3f7e1c2-7d0b-4a9e-9c1f-1b2d3e4f5a6b', name: 'User' }],
    });
    expect((await post(receiver.url, hello.activity)).status).toBe(200);
    const m = emulatorMessage('How many crimes were reported each year?', { conversation: { id: hello.conversationId } });
    expect((await post(receiver.url, m.activity)).status).toBe(200);
    const onIt = await connector.waitFor((c) => c.conversationId === hello.conversationId && c.activity.text === 'On it…');
    expect(onIt).toMatchObject({ verb: 'reply', activityId: m.id });
    // the Emulator cannot update a message: the answer comes as a new one, from the worker process
    const answer = await connector.waitFor((c) => c.conversationId === hello.conversationId && Boolean(card(c)), 30_000);
    expect(answer.verb).not.toBe('update');
    expect(card(answer).contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(JSON.stringify(card(answer).content)).toContain('SELECT year AS k1');
    expect(connector.calls.filter((c) => c.verb === 'update' && c.conversationId === hello.conversationId)).toEqual([]);
    const { rows } = await db.pool.query('SELECT reference FROM datadesk_app.conversation_references WHERE conversation_id = $1', [
      hello.conversationId,
    ]);
    expect(rows[0].reference).toMatchObject({ channelId: 'emulator', serviceUrl });
  });

  it('takes only requests from a program on this machine that answer to this machine', async () => {
    const before = connector.calls.length;
    const m = emulatorMessage('How many thefts were reported in 2019?');
    const origin = await post(receiver.url, m.activity, { origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    const form = await fetch(`${receiver.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(m.activity),
    });
    expect(form.status).toBe(415);
    const elsewhere = await post(receiver.url, { ...m.activity, serviceUrl: 'https://smba.trafficmanager.net/amer/' });
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.json()).toEqual({
      error: 'Without MICROSOFT_APP_ID the bot answers only to a serviceUrl on this machine (the Bot Framework Emulator).',
    });
    // a DNS-rebinding page reaches 127.0.0.1 under its own name
    const rebound = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${receiver.url}/api/messages`);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { host: `attacker.example:${u.port}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(m.activity));
    });
    expect(rebound).toBe(403);
    await new Promise((r) => setTimeout(r, 300));
    expect(connector.calls.length).toBe(before);
  });

  it('on a non-loopback HOST, serve does not start Teams and says why in one line', async () => {
    const wide = await spawnServe(env({ HOST: '0.0.0.0' }), children, ['--no-worker']);
    const lines = wide
      .log()
      .split('\n')
      .filter((l) => l.includes('Teams is NOT started'));
    expect(lines).toEqual([
      'error: Teams is NOT started: TEAMS_LOCAL=true takes activities without authentication, which is allowed only on a loopback HOST, and HOST=0.0.0.0 is not one. Set HOST=127.0.0.1 to try Teams with the Bot Framework Emulator, or MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD for a registered bot.',
    ]);
    expect(wide.log()).not.toContain('UNAUTHENTICATED');
    const port = new URL(wide.url).port;
    expect((await post(`http://127.0.0.1:${port}`, emulatorMessage('help').activity)).status).toBe(404);
  });

  it('a registered bot without its password is refused at start, naming the variable', async () => {
    const started = spawnServe(env({ TEAMS_LOCAL: 'false', MICROSOFT_APP_ID: '11111111-2222-3333-4444-555555555555' }), children);
    await expect(started).rejects.toThrow(/MICROSOFT_APP_PASSWORD: required with MICROSOFT_APP_ID to run the bot/);
  });
});

describe('config and the package', () => {
  it('TEAMS_LOCAL=true makes Teams "on" without an app id; with one it is a contradiction', () => {
    expect(loadConfig({ TEAMS_LOCAL: 'true' }).teams).toEqual({
      appId: '',
      appPassword: '',
      tenantId: '',
      appType: 'MultiTenant',
      local: true,
      allowedTenants: [],
    });
    expect(loadConfig({}).teams).toBeUndefined();
    expect(() => loadConfig({ TEAMS_LOCAL: 'true', MICROSOFT_APP_ID: 'x' })).toThrow(/TEAMS_LOCAL: true runs Teams without authentication/);
    expect(() => loadConfig({ TEAMS_LOCAL: 'yes' })).toThrow(/TEAMS_LOCAL: expected true or false/);
    expect(() => loadConfig({ TEAMS_PRIVACY_URL: 'http://example.com/privacy' })).toThrow(/TEAMS_PRIVACY_URL: expected an https:\/\/ URL/);
  });

  it('`teams package` needs the app id and an https PUBLIC_BASE_URL, not the password', () => {
    const input = teamsPackageInput(
      loadConfig({ MICROSOFT_APP_ID: '11111111-2222-3333-4444-555555555555', PUBLIC_BASE_URL: 'https://bot.example.com/' }),
    );
    expect(input).toEqual({
      appId: '11111111-2222-3333-4444-555555555555',
      domain: 'bot.example.com',
      links: {
        websiteUrl: 'https://bot.example.com/teams',
        privacyUrl: 'https://bot.example.com/teams/privacy',
        termsOfUseUrl: 'https://bot.example.com/teams/terms',
      },
    });
    const own = teamsPackageInput(
      loadConfig({
        MICROSOFT_APP_ID: 'a',
        PUBLIC_BASE_URL: 'https://bot.example.com',
        TEAMS_PRIVACY_URL: 'https://corp.example.com/privacy',
        TEAMS_TERMS_URL: 'https://corp.example.com/terms',
      }),
    );
    expect(own.links).toMatchObject({ privacyUrl: 'https://corp.example.com/privacy', termsOfUseUrl: 'https://corp.example.com/terms' });
    expect(() => teamsPackageInput(loadConfig({ TEAMS_LOCAL: 'true', PUBLIC_BASE_URL: 'https://bot.example.com' }))).toThrow(
      /Set MICROSOFT_APP_ID first/,
    );
    expect(() => teamsPackageInput(loadConfig({ MICROSOFT_APP_ID: 'a', PUBLIC_BASE_URL: 'http://bot.example.com' }))).toThrow(
      /needs the bot at an https URL/,
    );
  });
});
