// The playground over real HTTP, as an attacker on another site, on the
// network or behind a DNS-rebound name would try it.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartStore } from '../../../src/charts/chart-store.js';
import { playgroundAccess, type PlaygroundAccess } from '../../../src/channels/web/playground-access.js';
import { playgroundRoutes } from '../../../src/channels/web/playground-routes.js';
import { ConfigError, loadConfig } from '../../../src/config/env.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { startHttpServer, type Route, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { testDesk } from '../../helpers/desk.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';
import { VerifiedStore } from '../../../src/verified/verified-store.js';

const TOKEN = 'a3f9c2e71b5d48e0a6c4f1b29d7e8c35';
const THREAD = '0123456789abcdef0123456789abcdef';

let db: TestDatabase;
const servers: RunningServer[] = [];
let jobs: Jobs;
afterAll(async () => {
  for (const s of servers) await s.close();
  await jobs?.stop();
  await db?.drop();
});
beforeAll(async () => {
  db = await createTestDatabase();
  const { desk, logger } = testDesk(db);
  jobs = await testJobs(db, desk, logger);
});

/** A server on 127.0.0.1 whose playground believes HOST etc. are as given. */
async function serve(access: Partial<PlaygroundAccess> = {}, extra: Route[] = []) {
  const logger = createMemoryLogger();
  const route = playgroundRoutes({
    queue: jobs.queue,
    deliveries: jobs.deliveries,
    events: jobs.events,
    charts: new ChartStore(),
    logger,
    access: { host: '127.0.0.1', allowedHosts: [], perMinute: 100, ...access },
    feedback: { pool: db.pool, verified: new VerifiedStore(db.pool) },
  });
  const server = await startHttpServer('127.0.0.1', 0, [route, ...extra], logger);
  servers.push(server);
  return { server, route, logger, port: new URL(server.url).port };
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** node:http, so that Host, Origin and Content-Type are exactly what a hostile client sends. */
function request(server: RunningServer, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers: { host: url.host, ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const ask = (server: RunningServer, headers: Record<string, string> = {}, body: unknown = { thread: THREAD, text: 'help' }) =>
  request(server, 'POST', '/api/ask', { ...JSON_TYPE, ...headers }, typeof body === 'string' ? body : JSON.stringify(body));
const errorOf = (r: Reply) => JSON.parse(r.body).error as string;

describe('playground on loopback, no token', () => {
  it('serves the page with a strict CSP and answers a JSON question from its own origin', async () => {
    const { server, route, logger } = await serve();
    expect(route.enabled).toBe(true);
    expect(logger.lines.filter((l) => l.includes('Playground'))).toEqual([]);
    const page = await request(server, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const r = await ask(server, { origin: server.url });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream');
    const answer = /^event: answer\ndata: (.*)$/m.exec(r.body);
    expect(JSON.parse(answer![1]).answer).toMatchObject({ kind: 'result', route: 'help' });
  });

  it('refuses a cross-site text/plain post (what a form or a no-cors fetch can send): 403 for the origin, 415 for the type', async () => {
    const { server } = await serve();
    const formPost = await request(
      server,
      'POST',
      '/api/ask',
      { 'content-type': 'text/plain', origin: 'http://evil.example' },
      JSON.stringify({ thread: THREAD, text: 'help' }),
    );
    expect(formPost.status).toBe(403);
    expect(errorOf(formPost)).toBe(
      `Cross-origin request refused: a page from http://evil.example may not use this playground (only pages from http://${new URL(server.url).host}).`,
    );
    // without an Origin (older browsers, curl): the type alone is refused
    const plain = await request(
      server,
      'POST',
      '/api/ask',
      { 'content-type': 'text/plain;charset=UTF-8' },
      JSON.stringify({ thread: THREAD, text: 'help' }),
    );
    expect(plain.status).toBe(415);
    expect(errorOf(plain)).toBe('Send the request as JSON, with Content-Type: application/json.');
    const form = await request(server, 'POST', '/api/choose', { 'content-type': 'application/x-www-form-urlencoded' }, 'thread=x');
    expect(form.status).toBe(415);
    // a sandboxed page or a file: sends Origin "null"
    expect((await ask(server, { origin: 'null' })).status).toBe(403);
  });

  it('refuses a Host it does not answer to (DNS rebinding), and accepts localhost and the allowed names', async () => {
    const { server, port } = await serve({ allowedHosts: ['datadesk.internal'] });
    const rebound = await request(server, 'GET', '/', { host: `evil.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(errorOf(rebound)).toBe(
      `Host "evil.example:${port}" is not one this playground answers to (localhost, 127.0.0.1, [::1], datadesk.internal). Open it by one of those names, or add the name to PLAYGROUND_ALLOWED_HOSTS.`,
    );
    expect((await ask(server, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).status).toBe(403);
    expect((await request(server, 'GET', '/app.js', { host: `localhost:${port}` })).status).toBe(200);
    expect((await request(server, 'GET', '/style.css', { host: `DataDesk.Internal:${port}` })).status).toBe(200);
    // Origin must name the same host as Host
    expect((await ask(server, { host: `localhost:${port}`, origin: `http://127.0.0.1:${port}` })).status).toBe(403);
    expect((await ask(server, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it('takes only 32-hex-digit thread ids, and says what is wrong with a bad request', async () => {
    const { server } = await serve();
    for (const thread of ['abc', 't1kz3x9ab12cd', THREAD.toUpperCase(), `${THREAD}0`, '../../etc/passwd', 42]) {
      const r = await ask(server, {}, { thread, text: 'help' });
      expect(r.status).toBe(400);
      expect(errorOf(r)).toBe('thread must be 32 lowercase hex digits (128 random bits, e.g. from crypto.getRandomValues).');
    }
    expect(errorOf(await ask(server, {}, '{"thread": '))).toBe(
      'The request is not valid JSON. Send {"thread": "<32 hex digits>", "text": "..."}.',
    );
    expect(errorOf(await ask(server, {}, 'null'))).toBe('Send a JSON object: {"thread": "<32 hex digits>", "text": "..."}.');
    expect(errorOf(await ask(server, {}, { thread: THREAD, text: '  ' }))).toMatch(/^text must be the question/);
    const choose = await request(server, 'POST', '/api/choose', JSON_TYPE, JSON.stringify({ thread: THREAD, term: ['x'] }));
    expect([choose.status, errorOf(choose)]).toEqual([400, 'term and option must be strings, as in the clarifying question.']);
    const big = await ask(server, {}, { thread: THREAD, text: 'x'.repeat(70_000) });
    expect([big.status, errorOf(big)]).toEqual([413, 'The request is over 64 KB.']);
  });

  it('each browser thread is a channel of its own: the limit of answers at once per channel never makes one person wait for another', async () => {
    const { server } = await serve();
    const [a, b] = ['ab'.repeat(16), 'cd'.repeat(16)];
    expect((await ask(server, {}, { thread: a, text: 'help' })).status).toBe(200);
    expect((await ask(server, {}, { thread: b, text: 'help' })).status).toBe(200);
    const { rows } = await db.pool.query<{ channel: string }>(
      `SELECT DISTINCT channel FROM deliveries WHERE key LIKE 'web:' || $1 || ':%' OR key LIKE 'web:' || $2 || ':%' ORDER BY channel`,
      [a, b],
    );
    expect(rows.map((r) => r.channel)).toEqual([`playground:${a}`, `playground:${b}`]);
  });

  it('limits questions per client: 429 with Retry-After, and the refused one is not queued in the thread', async () => {
    // "help" is a fragment (half a question): a bucket of 1 takes two
    const { server } = await serve({ perMinute: 1 });
    expect((await ask(server)).status).toBe(200);
    expect((await ask(server)).status).toBe(200);
    const queued = `SELECT count(*)::int AS n FROM deliveries WHERE key LIKE 'web:' || $1 || ':%'`;
    const before = (await db.pool.query(queued, [THREAD])).rows[0].n;
    const limited = await ask(server);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(errorOf(limited)).toMatch(/^Too many questions: at most 1 a minute\. Try again in \d+ s\.$/);
    expect((await db.pool.query(queued, [THREAD])).rows[0].n).toBe(before);
    // the page itself is not limited, and clicks (a choice, a verdict) are no questions: they do not count against them
    expect((await request(server, 'GET', '/')).status).toBe(200);
    const click = await request(
      server,
      'POST',
      '/api/choose',
      JSON_TYPE,
      JSON.stringify({ thread: THREAD, term: 'night', option: '22-06' }),
    );
    expect(click.status).not.toBe(429);
  });
});

describe('playground with PLAYGROUND_TOKEN (HOST=0.0.0.0)', () => {
  const withToken = { host: '0.0.0.0', token: TOKEN, allowedHosts: ['datadesk.example.com'] };

  it('a browser opens /?token=... once, gets an HttpOnly SameSite cookie and the page; nothing works without it', async () => {
    const { server, route } = await serve(withToken);
    expect(route.enabled).toBe(true);
    const bare = await request(server, 'GET', '/');
    expect(bare.status).toBe(401);
    expect(bare.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(errorOf(bare)).toBe(
      'This playground needs its token (PLAYGROUND_TOKEN): open /?token=... once in the browser, or send Authorization: Bearer ...',
    );
    expect((await request(server, 'GET', '/app.js')).status).toBe(401);
    expect((await ask(server)).status).toBe(401);
    expect((await request(server, 'GET', `/?token=${TOKEN.slice(0, -1)}0`)).status).toBe(401);

    const link = await request(server, 'GET', `/?token=${TOKEN}`);
    expect(link.status).toBe(303);
    expect(link.headers.location).toBe('/');
    const setCookie = link.headers['set-cookie']![0];
    expect(setCookie).toMatch(/^datadesk_playground=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(';')[0];
    expect((await request(server, 'GET', '/', { cookie })).status).toBe(200);
    expect((await ask(server, { cookie })).status).toBe(200);
    expect((await ask(server, { cookie: 'datadesk_playground=' + '0'.repeat(64) })).status).toBe(401);
  });

  it("a token holder's 👍 is kept but verifies nothing: only the person at a loopback playground is a curator", async () => {
    const thumbsUp = async (server: RunningServer, headers: Record<string, string>, thread: string) => {
      const answered = await ask(server, headers, { thread, text: 'How many narcotics cases were reported in 2011?' });
      const answerId = /"answerId":"([0-9a-f-]{36})"/.exec(answered.body)?.[1];
      expect(answerId, answered.body).toBeDefined();
      const verdict = await request(
        server,
        'POST',
        '/api/feedback',
        { ...JSON_TYPE, ...headers },
        JSON.stringify({ thread, answer: answerId, verdict: 'up' }),
      );
      expect(verdict.status).toBe(200);
      return JSON.parse(verdict.body) as { promoted?: string; message: string };
    };
    const shared = await serve(withToken);
    const fromTokenHolder = await thumbsUp(shared.server, { authorization: `Bearer ${TOKEN}` }, 'aa'.repeat(16));
    expect(fromTokenHolder.promoted).toBeUndefined();
    expect(fromTokenHolder.message).toBe('Thanks: noted as a good answer.');
    const own = await serve();
    const fromThisMachine = await thumbsUp(own.server, {}, 'bb'.repeat(16));
    expect(fromThisMachine.promoted).toMatch(/^\d+$/);
  });

  it('scripts send Authorization: Bearer; the Host must still be a known name', async () => {
    const { server, port } = await serve(withToken);
    expect((await ask(server, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await ask(server, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await ask(server, { authorization: `Bearer ${TOKEN}`, host: `datadesk.example.com:${port}` })).status).toBe(200);
    expect((await ask(server, { authorization: `Bearer ${TOKEN}`, host: `10.1.2.3:${port}` })).status).toBe(403);
  });
});

describe('playground on a non-loopback HOST without a token', () => {
  it('is not served, says why in the log, and leaves the other endpoints alone', async () => {
    const slack: Route = async (req, res) => {
      if (req.url !== '/slack/events') return false;
      res.writeHead(200).end('slack');
      return true;
    };
    const { server, route, logger } = await serve({ host: '0.0.0.0' }, [slack]);
    expect(route.enabled).toBe(false);
    expect(logger.lines).toContain(
      'warn: Playground: the playground is off: HOST=0.0.0.0 is not a loopback address and PLAYGROUND_TOKEN is not set, so anyone who reaches this port could use it. ' +
        'Slack, Teams, /healthz and /status work as usual. To use the playground, set PLAYGROUND_TOKEN (openssl rand -hex 16) and open /?token=... once, or set HOST=127.0.0.1.',
    );
    const page = await request(server, 'GET', '/');
    expect(page.status).toBe(404);
    expect(errorOf(page)).toMatch(/^Not served: the playground is off: HOST=0\.0\.0\.0/);
    expect((await ask(server)).status).toBe(404);
    const events = await request(server, 'POST', '/slack/events', JSON_TYPE, '{}');
    expect([events.status, events.body]).toEqual([200, 'slack']);
  });
});

describe('configuration', () => {
  it('PLAYGROUND_TOKEN must be long enough; PLAYGROUND_ALLOWED_HOSTS must be host names', () => {
    expect(() => loadConfig({ PLAYGROUND_TOKEN: 'secret' })).toThrow(ConfigError);
    expect(() => loadConfig({ PLAYGROUND_TOKEN: 'secret' })).toThrow(/PLAYGROUND_TOKEN: expected at least 16 letters, digits/);
    expect(() => loadConfig({ PLAYGROUND_ALLOWED_HOSTS: 'ok.example.com,https://x.example.com:3000' })).toThrow(
      /PLAYGROUND_ALLOWED_HOSTS: "https:\/\/x\.example\.com:3000" is not a host name/,
    );
  });

  it('the access follows HOST, the token, the allowed names and PUBLIC_BASE_URL', () => {
    expect(playgroundAccess(loadConfig({}))).toEqual({ host: '127.0.0.1', token: undefined, allowedHosts: [], perMinute: 10, burst: 10 });
    expect(playgroundAccess(loadConfig({ RATE_LIMIT_USER_BURST: '25' })).burst).toBe(25);
    expect(playgroundAccess(loadConfig({ HOST: '192.168.1.20' })).allowedHosts).toEqual(['192.168.1.20']);
    expect(playgroundAccess(loadConfig({ HOST: '::1' })).allowedHosts).toEqual([]);
    const access = playgroundAccess(
      loadConfig({
        HOST: '0.0.0.0',
        PLAYGROUND_TOKEN: TOKEN,
        PLAYGROUND_ALLOWED_HOSTS: 'Desk.Example.com, 10.0.0.5',
        PUBLIC_BASE_URL: 'https://bot.example.com/',
        RATE_LIMIT_USER_PER_MINUTE: '4',
      }),
    );
    expect(access).toEqual({
      host: '0.0.0.0',
      token: TOKEN,
      allowedHosts: ['desk.example.com', '10.0.0.5', 'bot.example.com'],
      perMinute: 4,
      burst: 4,
    });
  });
});
