// The database goes away under a running bot, and comes back: serve keeps
// running, /healthz says 503 with the reason, a question gets "the database is
// unavailable", and once PostgreSQL is back everything works again by itself.
// A real PostgreSQL server of the test's own (the embedded one, on a free
// port) is stopped and started; the machine's server is never touched. Every
// wait is for an event (healthz's status, a reply in the thread); the bounds
// are fail-safes wide enough for a 2-core machine at load 16.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.js';
import { APP_SEARCH_PATH } from '../../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { tempDir } from '../helpers/files.js';
import { askPlayground, freePort, spawnServe } from '../helpers/serve.js';
import { postMention, startFakeSlack } from '../helpers/fake-slack.js';
import { pollUntil } from '../helpers/wait.js';

const pgHome = tempDir();
const botHome = tempDir();
const children: ChildProcess[] = [];
let port: number;
let server: EmbeddedServer;

const health = async (url: string) => {
  const res = await fetch(`${url}/healthz`);
  return { status: res.status, body: (await res.json()) as { database: string; reason?: string } };
};

beforeAll(async () => {
  port = await freePort();
  // as root the server runs as the postgres OS user, which must enter the folder (mkdtemp makes it 0700)
  chmodSync(pgHome.dir, 0o755);
  server = await startEmbeddedPostgres(pgHome.dir, port, createMemoryLogger());
}, 300_000);
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await server?.stop();
  pgHome.remove();
  botHome.remove();
});

describe('serve while PostgreSQL stops and starts', () => {
  it('stays up, reports 503 and a clear sentence while the database is down, and recovers by itself', async () => {
    const bot = await spawnServe({ DATABASE_URL: server.url, DATADESK_HOME: botHome.dir }, children);
    // the server's app login may not create roles: model-written SQL is off, and the log says why
    expect(bot.log()).toMatch(/model-written SQL is off: the app's login datadesk_app may not create roles/);
    const pool = new pg.Pool({ connectionString: server.url, options: APP_SEARCH_PATH, max: 2 });
    pool.on('error', () => undefined);
    await loadCrimes(pool, 500);
    await pool.end();
    const thread = randomBytes(16).toString('hex');
    expect(await askPlayground(bot.url, thread, 'How many thefts were reported in 2019?')).toMatchObject({ kind: 'result' });
    expect((await health(bot.url)).status).toBe(200);

    await server.stop();
    const down = await pollUntil(
      async () => {
        const h = await health(bot.url);
        return h.status === 503 ? h : undefined;
      },
      120_000,
      'healthz 503',
    );
    expect(down.body.database).toBe('down');
    expect(down.body.reason).toBeTruthy();
    expect(down.body.reason).not.toContain(new URL(server.url).password);
    const during = await askPlayground(bot.url, thread, 'How many thefts were reported in 2019?');
    expect(during).toMatchObject({
      kind: 'error',
      retryable: true,
      message: 'The database is unavailable right now; please try again shortly.',
    });
    expect(bot.child.exitCode).toBeNull();

    server = await startEmbeddedPostgres(pgHome.dir, port, createMemoryLogger());
    await pollUntil(async () => ((await health(bot.url)).status === 200 ? true : undefined), 120_000, 'healthz 200 again');
    expect(await askPlayground(bot.url, thread, 'How many thefts were reported in 2019?')).toMatchObject({ kind: 'result' });
    expect(bot.child.exitCode).toBeNull();
    expect(bot.log()).not.toMatch(/Unhandled|uncaught/i);
  }, 300_000);

  it("a Slack mention while the database is down gets the sentence in its thread, not silence, and is answered at Slack's retry", async () => {
    const slack = await startFakeSlack();
    let restarted = false;
    try {
      const secret = 'outage-secret';
      const bot = await spawnServe(
        {
          DATABASE_URL: server.url,
          DATADESK_HOME: botHome.dir,
          SLACK_BOT_TOKEN: 'xoxb-outage',
          SLACK_SIGNING_SECRET: secret,
          SLACK_API_URL: slack.apiUrl,
        },
        children,
      );
      await server.stop();
      await pollUntil(async () => ((await health(bot.url)).status === 503 ? true : undefined), 120_000, 'healthz 503');
      const ts = '1900000002.000100';
      const event = { eventId: 'EvOutage1', channel: 'C-outage', text: '<@UBOT> How many thefts were reported in 2019?', ts };
      // not stored, so not acknowledged: Slack will deliver it again
      expect(await postMention(bot.url, secret, event)).toBe(500);
      const said = await slack.waitFor(
        (c) => c.args.channel === 'C-outage' && /database is unavailable/.test(JSON.stringify(c.args)),
        120_000,
      );
      expect(said.args.thread_ts ?? ts).toBe(ts);
      expect(bot.child.exitCode).toBeNull();
      // the database is back; Slack's retry of the same event is answered in the thread
      server = await startEmbeddedPostgres(pgHome.dir, port, createMemoryLogger());
      restarted = true;
      await pollUntil(async () => ((await health(bot.url)).status === 200 ? true : undefined), 120_000, 'healthz 200');
      expect(await postMention(bot.url, secret, { ...event, retryNum: 1 })).toBe(200);
      await slack.waitFor((c) => c.args.channel === 'C-outage' && /Thefts in 2019/.test(JSON.stringify(c.args)), 120_000);
    } finally {
      if (!restarted) server = await startEmbeddedPostgres(pgHome.dir, port, createMemoryLogger());
      await slack.close();
    }
  }, 300_000);
});
