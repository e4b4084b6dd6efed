// `datadesk serve` as a process: what it mounts depending on the configuration,
// and a Slack question answered end to end through the spawned server.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { postMention, startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { tempDir } from '../helpers/files.js';
import { spawnServe } from '../helpers/serve.js';

let db: TestDatabase;
let slack: FakeSlack;
const tmp = tempDir();
const children: ChildProcess[] = [];

/** Starts `datadesk serve` on the test database. */
const serve = (env: Record<string, string>) =>
  spawnServe(
    { DATABASE_URL: db.url, DATADESK_HOME: tmp.dir, THREAD_MEMORY_URL: 'memory', DATADESK_ALLOW_SUPERUSER: 'true', ...env },
    children,
  );

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  slack = await startFakeSlack();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await slack?.close();
  await db?.drop();
  tmp.remove();
});

describe('datadesk serve', () => {
  it('without chat credentials: the playground, health and status; stops cleanly on SIGTERM', async () => {
    const { url, child, log } = await serve({});
    expect(log()).toContain(`Playground: ${url}`);
    expect(log()).toMatch(/LLM: none configured/);
    expect((await fetch(`${url}/`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', database: 'up' });
    expect((await (await fetch(`${url}/status`)).json()).data.crimes.rows).toBe(3_000);
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('a taken port: one line that names the PORT setting, exit 1', async () => {
    const blocker = (await import('node:net')).createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const failed = await serve({ PORT: String(port) }).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failed).toMatch(/exited with 1/);
      expect(failed).toContain(
        `Port ${port} on 127.0.0.1 is taken by another program: stop it, or set PORT to a free port (e.g. PORT=${port + 1} npm start).`,
      );
      expect(failed).not.toMatch(/EADDRINUSE|at .*\.js:\d+/);
    } finally {
      blocker.close();
    }
  });

  it('with Slack credentials: answers a signed mention through the spawned server, no playground', async () => {
    const secret = 'serve-test-secret';
    const { url, log } = await serve({ SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: secret, SLACK_API_URL: slack.apiUrl });
    expect(log()).toContain(`Slack: events, commands and actions at ${url}/slack/events`);
    expect((await fetch(`${url}/`)).status).toBe(404);
    const status = await postMention(url, secret, {
      eventId: 'EvServe1',
      channel: 'C-serve',
      text: '<@UBOT> How many thefts were reported in 2019?',
      ts: '1900000001.000100',
    });
    expect(status).toBe(200);
    const answer = await slack.waitFor((c) => c.method === 'chat.update' && c.args.channel === 'C-serve' && Boolean(c.args.blocks));
    expect(JSON.stringify(answer.args.blocks)).toContain('Thefts in 2019, all of Chicago');
  });

  it('with Teams credentials: mounts /api/messages, which refuses a request without a Bot Framework token', async () => {
    const { url, log } = await serve({
      MICROSOFT_APP_ID: '00000000-0000-0000-0000-00000000abcd',
      MICROSOFT_APP_PASSWORD: 'not-a-real-secret',
      PUBLIC_BASE_URL: 'https://datadesk.example.com',
    });
    expect(log()).toContain('Teams: messages at https://datadesk.example.com/api/messages');
    expect(log()).not.toContain('not-a-real-secret');
    const res = await fetch(`${url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'message',
        id: '1',
        serviceUrl: 'https://smba.trafficmanager.net/amer/',
        channelId: 'msteams',
        conversation: { id: 'a:1' },
        from: { id: '29:x' },
        text: 'help',
      }),
    });
    expect(res.status).toBe(401);
    expect((await fetch(`${url}/`)).status).toBe(404);
  });
});
