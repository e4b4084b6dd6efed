import { chmodSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const tmp = tempDir();
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

describe('datadesk CLI', () => {
  it('--help lists every command', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['serve', 'ingest crimes', 'ingest stocks', 'generate crimes', 'generate stocks', 'db migrate', 'db status']) {
      expect(r.stdout).toContain(command);
    }
  });

  it('fails at start on a bad setting, naming the variable, without a stack trace', async () => {
    const r = await runCli(['db', 'status'], { PORT: 'eighty', DATABASE_URL: db.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('datadesk: Invalid configuration:\n  - PORT: expected a whole number from 0 to 65535\n');
  });

  it('explains a bad option value', async () => {
    const r = await runCli(['generate', 'crimes', '--rows', 'lots', '--out', 'x.csv']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`option '--rows <n>' argument 'lots' is invalid. expected a whole number of 1 or more, got "lots"`);
  });

  it('says clearly when the database is unreachable', async () => {
    const r = await runCli(['db', 'status'], { DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^datadesk: Cannot connect to PostgreSQL at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none: /);
    expect(r.stderr).not.toContain('secret');
  });

  it('generates, ingests and reports, end to end; a second ingest changes nothing', async () => {
    const csv = tmp.file('crimes.csv');
    const gen = await runCli(['generate', 'crimes', '--rows', '3000', '--seed', '5', '--out', csv]);
    expect(gen.code).toBe(0);
    expect(gen.stdout).toMatch(/^Wrote 3,000 crimes to .*crimes\.csv in [\d.]+ s\n/);
    const env = { DATABASE_URL: db.url };
    const first = await runCli(['ingest', 'crimes', '--csv', csv], env);
    expect(first.stderr).toContain('applied migrations 001_app_state');
    expect(first.stdout).toMatch(/^Crimes: 3,000 rows read; 3,000 loaded, 0 updated, 0 unchanged, 0 rejected in/);
    const second = await runCli(['ingest', 'crimes', '--csv', csv], env);
    expect(second.stdout).toMatch(/^Crimes: 3,000 rows read; 0 loaded, 0 updated, 3,000 unchanged, 0 rejected in/);
    const status = await runCli(['db', 'status'], env);
    expect(JSON.parse(status.stdout).crimes.rows).toBe(3000);
  });

  it('refuses --csv together with --socrata', async () => {
    const r = await runCli(['ingest', 'crimes', '--csv', 'a.csv', '--socrata'], { DATABASE_URL: db.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('datadesk: Give exactly one of --csv FILE or --socrata [URL]\n');
  });

  it('names the missing file', async () => {
    const r = await runCli(['ingest', 'stocks', '--exchange', 'sse', '--csv', tmp.file('nope.csv')], { DATABASE_URL: db.url });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^datadesk: Cannot read .*nope\.csv: no such file\n$/);
  });
});

describe('datadesk ask on the embedded defaults', () => {
  it('starts the embedded PostgreSQL, loads the demo set on first use, and answers', async () => {
    const home = tempDir();
    // as root, the server runs as the `postgres` OS user, which must be able to enter the folder
    chmodSync(home.dir, 0o755);
    try {
      const env = {
        DATADESK_HOME: home.dir,
        EMBEDDED_PG_PORT: String(55_000 + Math.floor(Math.random() * 5_000)),
        DEMO_CRIME_ROWS: '4000',
        DEMO_TICKERS: '3',
        THREAD_MEMORY_URL: 'memory',
      };
      const r = await runCli(['ask', '--json', 'How many crimes were reported each year?'], env);
      expect(r.stderr).toContain('Demo data loaded: 4,000 crimes and');
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ route: 'sql', status: 'answered', row_count: 25 });
      expect(out.rows.reduce((s: number, row: [string, number]) => s + row[1], 0)).toBeGreaterThan(0);
      // the second time the data is there already
      const again = await runCli(['ask', '--json', 'How many thefts were reported in 2019?'], env);
      expect(again.stderr).not.toContain('Demo data');
      expect(JSON.parse(again.stdout).status).toBe('answered');
    } finally {
      home.remove();
    }
  }, 120_000);
});
