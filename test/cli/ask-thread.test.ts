// `datadesk ask` calls are separate conversations unless they name a thread:
// a follow-up edits the last plan only within one --thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

let db: TestDatabase;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

describe('datadesk ask and threads', () => {
  it('without --thread each call starts afresh; with one, "and in 2020?" edits the last question', async () => {
    const env = { DATABASE_URL: db.url, DATADESK_HOME: tmp.dir, DEMO_DATA: 'off', SOCRATA_SCHEDULE: 'off' };
    const ask = async (...args: string[]) => JSON.parse((await runCli(['ask', '--json', ...args], env)).stdout);
    expect(await ask('How many thefts were reported in district 11 in 2019?')).toMatchObject({ status: 'answered' });
    // no thread: nothing to edit, so the fragment is not read as a question of its own
    expect((await ask('and in 2020?')).status).not.toBe('answered');
    await ask('--thread', 't1', 'How many thefts were reported in district 11 in 2019?');
    const edit = await ask('--thread', 't1', 'and in 2020?');
    const truth = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND district = 11 AND year = 2020`))
      .rows[0].n;
    expect(edit).toMatchObject({ status: 'answered', rows: [[truth]], understood: ['thefts', 'in 2020', 'in district 11'] });
    const choose = await runCli(['ask', '--choose', 'night=22-06'], env);
    expect(choose.stderr).toMatch(/--choose answers a question of a thread: give the --thread/);
  }, 60_000);

  it('--json returns every row up to --max-rows, with the true row_count', async () => {
    const env = { DATABASE_URL: db.url, DATADESK_HOME: tmp.dir, DEMO_DATA: 'off', SOCRATA_SCHEDULE: 'off' };
    const blocks = (await db.pool.query(`SELECT count(DISTINCT block) AS n FROM crimes WHERE primary_type = 'THEFT' AND block IS NOT NULL`))
      .rows[0].n;
    const all = JSON.parse((await runCli(['ask', '--json', 'which blocks had the most thefts'], env)).stdout);
    expect(all.row_count).toBe(blocks);
    expect(all.rows).toHaveLength(blocks);
    const five = JSON.parse((await runCli(['ask', '--json', '--max-rows', '5', 'which blocks had the most thefts'], env)).stdout);
    expect(five).toMatchObject({ row_count: blocks, rows: all.rows.slice(0, 5) });
    const bad = await runCli(['ask', '--json', '--max-rows', 'lots', 'which blocks had the most thefts'], env);
    expect(bad.stderr).toContain('--max-rows takes a whole number from 1 to 1,000,000, not "lots"');
  }, 60_000);
  it('"/backtest ..." is the backtest, as in the playground (it was read as a ticker); help offers no digests here', async () => {
    const env = { DATABASE_URL: db.url, DATADESK_HOME: tmp.dir, DEMO_DATA: 'off', SOCRATA_SCHEDULE: 'off' };
    const help = await runCli(['ask', '/backtest help'], env);
    expect(help.stdout).toMatch(/^Backtest rule syntax/);
    const guide = await runCli(['ask', 'help'], env);
    expect(guide.stdout).toMatch(/^What I can do/);
    expect(guide.stdout).not.toMatch(/digest/i);
  }, 60_000);
});
