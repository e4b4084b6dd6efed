// The README's first steps in a fresh clone (issue 36), so that the docs and
// the behaviour cannot drift apart: a clone of this checkout's HEAD,
// `npm install`, then `npx datadesk --help` at once (it used to copy the
// project into npm's npx cache and compile it again, about 2 minutes, saying
// nothing), and the CLI on a moved port: `EMBEDDED_PG_PORT=<port>
// DATADESK_HOME=<dir> npx datadesk db status` creates the embedded server once
// and a second call reuses it; while `serve` holds it, a command without
// EMBEDDED_PG_PORT uses that server instead of starting a second one.
// The install is a real one (--prefer-offline: from npm's cache where it can),
// about 2 minutes of the test's 3 to 4 on 2 cores.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read, root } from './deploy-facts.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'datadesk-clone-'));
// as root the embedded PostgreSQL runs as the `postgres` OS user, which must be able to enter these folders
chmodSync(work, 0o755);
const clone = path.join(work, 'clone');
const home = path.join(work, 'home');
// npx gets a cache of its own: were it to install the project into one (the old way), it would show there
const npxCache = path.join(work, 'npx-cache');
let serve: ChildProcess | undefined;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A command in the clone, with only the environment a person would have (none of npm test's own variables). */
function sh(command: string, args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: existsSync(clone) ? clone : work,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function gone(file: string, ms = 20_000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) if (!existsSync(file)) return true;
  return false;
}

beforeAll(async () => {
  const cloned = await sh('git', ['clone', '--quiet', root, clone]);
  expect(cloned.code, cloned.stderr).toBe(0);
  const install = await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {}, 900_000);
  expect(install.code, install.stderr.slice(-2000)).toBe(0);
}, 900_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    serve.kill('SIGTERM');
    await new Promise((r) => serve!.once('exit', r));
  }
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('a fresh clone', () => {
  it('npx datadesk --help answers at once, from the clone, and points to docs it has', async () => {
    expect(read('README.md')).toContain('npx datadesk --help');
    const node = await sh(process.execPath, ['dist/cli/main.js', '--help']);
    const npx = await sh('npx', ['datadesk', '--help'], { npm_config_cache: npxCache });
    expect(npx.code, npx.stderr).toBe(0);
    expect(npx.stdout).toContain('All commands:');
    expect(npx.stdout).toBe(node.stdout);
    // no install of the project into npx's cache (that install rebuilt it, silently, for two minutes): no timing needed
    expect(existsSync(path.join(npxCache, '_npx'))).toBe(false);
    // the backtest group's pointer is a file in the repository
    const doc = /\b(docs\/[a-z-]+\.md)\b/.exec(npx.stdout)?.[1];
    expect(doc).toBe('docs/backtest-engine.md');
    expect(existsSync(path.join(clone, doc!))).toBe(true);
    expect(npx.stdout).not.toContain('BACKTEST_PROTOCOL.md');
  }, 120_000);

  it('on a moved port the CLI creates the embedded server once, reuses it, and joins the one serve holds', async () => {
    const port = await freePort();
    const moved = { EMBEDDED_PG_PORT: String(port), DATADESK_HOME: home, npm_config_cache: npxCache };
    const pidFile = path.join(home, 'pg', 'postmaster.pid');

    const first = await sh('npx', ['datadesk', 'db', 'status'], moved);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toHaveProperty('crimes.rows', 0);
    expect(first.stderr).toContain("creating the embedded server's data directory");
    expect(first.stderr).toContain(`embedded server started on port ${port}`);
    expect(await gone(pidFile)).toBe(true); // stopped with the command

    const second = await sh('npx', ['datadesk', 'db', 'status'], moved);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('creating');
    expect(second.stderr).toContain(`embedded server started on port ${port}`);
    expect(await gone(pidFile)).toBe(true);

    // serve on the moved port (the linked bin, so that the test holds its pid); a command without EMBEDDED_PG_PORT joins it
    serve = spawn(path.join(clone, 'node_modules/.bin/datadesk'), ['serve'], {
      cwd: clone,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...moved, PORT: '0', DEMO_DATA: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    serve.stdout!.on('data', (d) => (log += d));
    serve.stderr!.on('data', (d) => (log += d));
    for (const until = Date.now() + 150_000; !log.includes('Data Desk is running') && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 250));
    expect(log).toContain('Data Desk is running');

    const joined = await sh('npx', ['datadesk', 'db', 'status'], { DATADESK_HOME: home, npm_config_cache: npxCache });
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stderr).toContain(`using the embedded server already running on port ${port}`);
    expect(joined.stderr).not.toContain('started on port');

    serve.kill('SIGTERM');
    await new Promise((r) => serve!.once('exit', r));
    expect(await gone(pidFile)).toBe(true);
    expect(existsSync(path.join(npxCache, '_npx'))).toBe(false);
  }, 400_000);
});
