// The first start's demo load is all or nothing (issue 21): a start stopped
// while it loaded (Ctrl-C) left 100,000 of 300,000 crimes for good, and every
// later start answered from them. A load is marked unfinished before its first
// row and finished after its last; the next start finds an unfinished one and
// loads it again, whole.
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { ensureDemoData } from '../../src/ingest/demo-data.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { tempDir } from '../helpers/files.js';

// what a Ctrl-C in the middle of the first start leaves: some of the rows (400 here)
const data = crimeDatabase(400);
const home = tempDir();
afterAll(() => home.remove());

describe('the demo load', () => {
  it('an interrupted load is found at the next start and redone whole; a finished one is left alone', async () => {
    const config = { ...loadConfig({ SOCRATA_SCHEDULE: 'off' }), home: home.dir, demoCrimeRows: 1_500, demoTickers: 2 };
    // ... and the mark of a load not finished
    const db = data.db;
    await db.pool.query(`INSERT INTO ingest_state (source, cursor) VALUES ('demo:crimes', '{"synthetic": true, "complete": false}')`);
    const logger = createMemoryLogger();
    await ensureDemoData(db.pool, config, logger);
    expect(logger.lines.join('\n')).toMatch(/the last start was stopped while it loaded the demo crimes; loading them again, whole/);
    const count = async () => (await db.pool.query('SELECT count(*)::int AS n FROM crimes')).rows[0].n;
    expect(await count()).toBe(1_500);
    expect((await db.pool.query(`SELECT cursor FROM ingest_state WHERE source = 'demo:crimes'`)).rows[0].cursor).toEqual({
      synthetic: true,
      complete: true,
    });
    // the next start: nothing to redo
    const again = createMemoryLogger();
    expect(await ensureDemoData(db.pool, config, again)).toEqual([]);
    expect(await count()).toBe(1_500);
  }, 120_000);
});
