// The CLI as a process behind a slow pipe: output larger than the 64 KB pipe
// buffer arrives whole, and the exit code says what kind of answer it was.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { runCli } from '../helpers/cli.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { tempDir } from '../helpers/files.js';

/**
 * Runs the built CLI with a reader that, once output has begun, stops reading
 * until the process has exited (or 2 s have passed), then takes the rest. A
 * CLI that exits with output still buffered loses it here.
 */
function runCliSlowReader(args: string[], env: Record<string, string>): Promise<CliResult & { exitedBeforeRead: boolean }> {
  const child = spawn(process.execPath, [path.resolve('dist/cli/main.js'), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let reading = false;
  let exitedBeforeRead = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exitedBeforeRead = !reading;
      resolve();
    }),
  );
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.once('readable', () => {
    void Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]).then(() => {
      reading = true;
      child.stdout.on('data', (c: Buffer) => chunks.push(c));
      child.stdout.resume();
    });
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks).toString('utf8'), stderr, exitedBeforeRead }));
  });
}

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('output larger than a pipe buffer, read slowly', () => {
  it('backtest simulate: the whole JSON arrives, and the process waits for the reader', async () => {
    const days = 12_000;
    const bars = ['date,open,high,low,close,volume'];
    const signals = ['date,buy,sell'];
    const day = new Date('2000-01-03T00:00:00Z');
    for (let i = 0; i < days; i++) {
      const date = day.toISOString().slice(0, 10);
      const price = (10 + 2 * Math.sin(i / 9)).toFixed(2);
      bars.push(`${date},${price},${price},${price},${price},1000`);
      signals.push(`${date},${i % 7 === 0 ? 1 : 0},${i % 7 === 3 ? 1 : 0}`);
      day.setUTCDate(day.getUTCDate() + 1);
    }
    const r = await runCliSlowReader(
      ['backtest', 'simulate', '--bars', tmp.file('bars.csv', bars.join('\n')), '--signals', tmp.file('signals.csv', signals.join('\n'))],
      {},
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(200 * 1024);
    // the process could not exit before the reader had taken everything
    expect(r.exitedBeforeRead).toBe(false);
    const out = JSON.parse(r.stdout);
    expect(out.equity).toHaveLength(days + 1); // the initial capital first
    expect(out.trades.length).toBeGreaterThan(1_500);
  }, 60_000);
});

describe('datadesk ask --json as a script reads it', () => {
  let db: TestDatabase;
  let llm: FakeLlm;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await createTestDatabase();
    await loadCrimes(db.pool, 3_000);
    llm = await startFakeLlm();
    env = {
      DATABASE_URL: db.url,
      DATADESK_ALLOW_SUPERUSER: 'true',
      THREAD_MEMORY_URL: 'memory',
      DEMO_DATA: 'off',
      SQL_DISPLAY_ROWS: '1000',
      SOCRATA_SCHEDULE: 'off',
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'k',
      LLM_MODEL: 'fake',
    };
  }, 120_000);
  afterAll(async () => {
    await llm?.close();
    await db?.drop();
  });
  beforeEach(() => {
    llm.script.length = 0;
    llm.requests.length = 0;
  });

  it('1,000 rows of JSON (far more than 64 KB) arrive whole through a slow pipe; exit 0', async () => {
    const sql =
      'SELECT id, case_number, date, block, iucr, primary_type, description, location_description, arrest, domestic, beat, district, ward, community_area, fbi_code, latitude, longitude FROM crimes ORDER BY id LIMIT 1000';
    llm.script.push({ content: JSON.stringify({ sql }) }, { content: 'Here are the first 1,000 crimes.' });
    const r = await runCliSlowReader(['ask', '--json', 'List the first 1000 crimes with their details'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(200 * 1024);
    expect(r.exitedBeforeRead).toBe(false);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ route: 'sql', status: 'answered', sql, row_count: 1000 });
    expect(out.rows).toHaveLength(1000);
  }, 120_000);

  it('an error answer exits 1, with the error in the JSON', async () => {
    for (let i = 0; i < 3; i++) llm.script.push({ content: JSON.stringify({ sql: 'SELECT nothing FROM nowhere' }) });
    // a detail the query plan cannot say, so the (scripted, failing) model writes the SQL
    const r = await runCli(['ask', '--json', 'how many thefts in 2019 involved a getaway driver'], env);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error' });
    expect(r.code).toBe(1);
  }, 60_000);

  it('a refusal exits 3 and a clarifying question exits 4 (offline, no LLM calls)', async () => {
    const refused = await runCli(['ask', '--json', 'What is the weather like in Paris tomorrow?'], env);
    expect(JSON.parse(refused.stdout)).toMatchObject({ route: 'reject', status: 'rejected' });
    expect(refused.code).toBe(3);
    const clarify = await runCli(['ask', 'How many robberies happened at night in 2019?'], env);
    expect(clarify.stdout).toMatch(/Answer with: datadesk ask --thread [0-9a-f]{12} --choose night=22-06/);
    expect(clarify.code).toBe(4);
    expect(llm.requests.length).toBe(0);
  }, 60_000);

  it('--help documents the exit codes', async () => {
    const r = await runCli(['ask', '--help']);
    expect(r.stdout).toContain('Exit codes:\n  0  answered\n  1  the answer is an error');
    expect(r.stdout).toContain('  4  needs a choice first: run again with --choose TERM=OPTION');
  });
});
