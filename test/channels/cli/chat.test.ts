import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/files.js';

let db: TestDatabase;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

describe('datadesk chat (through stdin)', () => {
  it('answers, saves charts as PNG files, and takes a clarification by number', async () => {
    const thefts = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)).rows[0].n;
    const input = [
      'How many thefts were reported in 2019?',
      'How many crimes were reported each year?',
      'How many robberies happened at night in 2019?',
      '3',
      'exit',
      '',
    ].join('\n');
    const r = await runCli(['chat'], { DATABASE_URL: db.url, DATADESK_HOME: tmp.dir, THREAD_MEMORY_URL: 'memory' }, undefined, input);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Thefts in 2019, all of Chicago: ${thefts.toLocaleString('en-US')}`);
    const chart = /Chart: (\S+\.png)/.exec(r.stdout)?.[1];
    expect(chart && existsSync(chart)).toBe(true);
    expect(r.stdout).toContain('What counts as night?\n  1. 22:00-06:00');
    expect(r.stdout).toContain('(type 1-3 to choose)');
    expect(r.stdout).toContain('(extract(hour FROM date) >= 18 OR extract(hour FROM date) < 6)');
    expect(r.stdout).toContain('  - night: 18:00-06:00');
  });
});
