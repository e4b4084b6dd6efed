// A bulk load keeps every rollup exact without its per-statement triggers: each
// merge transaction adds the batch's change to each rollup once. Checked as the
// differential test does it (every group of every rollup equal to counting
// crimes afresh) after a load in several merges, after a re-load that moves
// stored rows to another type, year and block, after refused rows, and while
// another session writes and a reader reads during the load.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLLUPS, type Rollup } from '../../../src/db/rollups.js';
import { ingestCsv, type CsvSource } from '../../../src/ingest/csv-ingest.js';
import { CRIMES_SPEC, PORTAL_CSV_HEADER } from '../../../src/ingest/crimes/crime-table.js';
import { rollupSources } from '../../../src/ingest/crimes/rollup-upkeep.js';
import { portalCsvSource } from '../../../src/ingest/crimes/portal-csv.js';
import { generateCrimes } from '../../../src/ingest/generate/crimes.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { parseSimpleCsv, tempDir } from '../../helpers/files.js';
import { portalRow } from '../../helpers/crime-data.js';
import { runCli } from '../../helpers/cli.js';
import { pollUntil } from '../../helpers/wait.js';

let db: TestDatabase;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

// counted here from the rollup's definition, apart from the ingest's SQL
function countedAfresh(r: Rollup): string {
  const key = r.grain === 'all' ? [...r.columns] : [`crime_rollup_date('${r.grain}', date)`, ...r.columns];
  return `SELECT ${key.join(', ')}, count(*)::int AS n FROM crimes GROUP BY ${key.map((_, i) => i + 1).join(', ')}`;
}

/** Groups where a rollup differs from counting crimes afresh (both directions), per rollup. */
async function drift(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of ROLLUPS) {
    const stored = `SELECT ${(r.grain === 'all' ? [...r.columns] : ['date', ...r.columns]).join(', ')}, n FROM ${r.table}`;
    const fresh = countedAfresh(r);
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM ((${fresh} EXCEPT ALL ${stored}) UNION ALL (${stored} EXCEPT ALL ${fresh})) d`,
    );
    out[r.table] = rows[0].n;
  }
  return out;
}
const none = () => Object.fromEntries(ROLLUPS.map((r) => [r.table, 0]));

const load = (file: string, batchSize?: number, source: CsvSource = portalCsvSource) =>
  ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source, rejectsPath: `${file}.rejects.csv`, batchSize });

const count = async (sql: string, params: unknown[] = []) => Number((await db.pool.query(sql, params)).rows[0].n);

describe('a bulk load keeps the rollups exact', () => {
  it('sums a rollup from a finer one only where the finer one keeps its columns and gives its dates', async () => {
    const derived = [...rollupSources()].filter((pair): pair is [Rollup, Rollup] => pair[1] !== undefined);
    expect(derived.length).toBeGreaterThan(0); // else the merges below would not be tested
    // every hour of two years around a leap day and a year turning on each weekday, at odd minutes
    const hours = `SELECT t + make_interval(mins => (extract(doy FROM t)::int * 7) % 60, secs => 13) AS t
      FROM generate_series(timestamp '2019-12-20', timestamp '2021-01-12', interval '1 hour') AS t`;
    for (const [coarse, fine] of derived) {
      expect(coarse.columns.every((c) => fine.columns.includes(c))).toBe(true);
      if (coarse.grain === 'all') continue; // no date
      const wrong = await count(
        `SELECT count(*)::int AS n FROM (${hours}) h
         WHERE crime_rollup_date($1, crime_rollup_date($2, t)) IS DISTINCT FROM crime_rollup_date($1, t)`,
        [coarse.grain, fine.grain],
      );
      expect({ rollup: coarse.table, from: fine.table, wrong }).toEqual({ rollup: coarse.table, from: fine.table, wrong: 0 });
    }
  });

  it('in a load merged in several transactions, and leaves the triggers on for other writers', async () => {
    const file = tmp.file('crimes.csv');
    await generateCrimes({ rows: 7_000, seed: 9, out: file });
    // batches of 1,000: a merge of the first 1,000 rows, then one of the other 6,000
    const summary = await load(file, 1_000);
    expect(summary).toMatchObject({ inserted: 7_000, updated: 0, rejected: 0 });
    expect(await drift()).toEqual(none());

    const { rows: triggers } = await db.pool.query(
      `SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'crimes'::regclass AND tgfoid = 'crime_rollups_apply'::regproc ORDER BY tgname`,
    );
    expect(triggers.map((t) => t.tgenabled)).toEqual(['O', 'O', 'O']);
    // a single-row write (a psql session, the sync's trigger path) still moves them
    await db.pool.query(`UPDATE crimes SET primary_type = 'ARSON', block = '000XX W TEST ST' WHERE id = (SELECT min(id) FROM crimes)`);
    expect(await count(`SELECT n FROM crimes_by_block WHERE block = '000XX W TEST ST'`)).toBe(1);
    expect(await drift()).toEqual(none());
  });

  it('when a re-load replaces stored rows with newer versions of another type, year and block', async () => {
    const { rows } = await db.pool.query<{ id: number }>('SELECT id FROM crimes ORDER BY id LIMIT 300');
    const ids = rows.map((r) => r.id);
    const newer = (id: number) => portalRow(id).replace(',02/10/2018 03:50:01 PM,', ',11/30/2026 11:00:00 PM,');
    const lines = [
      ...ids.slice(0, 200).map(newer), // moved: BATTERY in 2015 on 047XX W OHIO ST
      ...ids.slice(200, 300).map((id) => portalRow(id).replace(',02/10/2018 03:50:01 PM,', ',01/01/2001 12:00:00 AM,')), // older: stays as stored
      newer(ids[0]).replace('BATTERY', 'ROBBERY').replace('11/30/2026', '11/29/2026'), // a duplicate that loses to the newer one
      ...[1, 2, 3].map((i) => newer(90_000_000 + i)), // new
    ];
    const before = await count(`SELECT coalesce(sum(n), 0) AS n FROM crimes_by_block WHERE block = '047XX W OHIO ST'`);
    const file = tmp.file('overlap.csv', [PORTAL_CSV_HEADER.join(','), ...lines].join('\n') + '\n');
    const summary = await load(file);
    expect(summary).toMatchObject({ inserted: 3, updated: 200, unchanged: 101 });
    expect(await drift()).toEqual(none());
    expect(
      await count(`SELECT coalesce(sum(n), 0) AS n FROM crimes_by_block WHERE block = '047XX W OHIO ST' AND primary_type = 'BATTERY'`),
    ).toBe(before + 203);
    expect(await count('SELECT coalesce(sum(n), 0) AS n FROM crimes_by_day')).toBe(7_003);
  });

  it('when PostgreSQL refuses rows, in the COPY or in the merge: those are reported, the others merged', async () => {
    // a source without the row checks: one beat is not a number (the COPY refuses it), one
    // type is too long for an index entry (the merge refuses it)
    let seed = 1; // not compressible: an index entry keeps it whole
    const noise = Array.from({ length: 4_000 }, () => String.fromCharCode(65 + ((seed = (seed * 48_271) % 2_147_483_647) % 26))).join('');
    const unchecked: CsvSource = {
      header: PORTAL_CSV_HEADER,
      parseRow: (f) => {
        const parsed = portalCsvSource.parseRow(f);
        if (!('values' in parsed)) return parsed;
        const values = parsed.values.split('\t');
        if (f[0] === '91000002') values[10] = 'twelve';
        if (f[0] === '91000004') values[5] = noise;
        return { values: values.join('\t') };
      },
    };
    const lines = [1, 2, 3, 4, 5].map((i) => portalRow(91_000_000 + i).replace('047XX W OHIO ST', '049XX W OHIO ST'));
    const file = tmp.file('refused.csv', [PORTAL_CSV_HEADER.join(','), ...lines].join('\n') + '\n');
    const summary = await load(file, 2, unchecked);
    expect(summary).toMatchObject({ inserted: 3, rejected: 2 });
    const rejects = parseSimpleCsv(readFileSync(`${file}.rejects.csv`, 'utf8')).slice(1);
    expect(rejects.map((r) => [r[0], r[1].replace(/:.*/s, '')])).toEqual([
      ['3', 'refused by PostgreSQL'],
      ['5', 'refused by PostgreSQL'],
    ]);
    expect(await count(`SELECT n FROM crimes_by_block WHERE block = '049XX W OHIO ST'`)).toBe(3);
    expect(await drift()).toEqual(none());
  });

  it('while another session writes crimes and a reader reads: the reader never sees crimes and rollups disagree', async () => {
    const file = tmp.file('more.csv');
    await generateCrimes({ rows: 20_000, seed: 11, out: file });
    // the generator's ids start where the first file's did: re-key them past every stored id
    const text = readFileSync(file, 'utf8').replace(/^(\d+),/gm, (_, id: string) => `${Number(id) + 50_000_000},`);
    const moved = tmp.file('more-rekeyed.csv', text);
    let loading = true;
    const writes = (async () => {
      let n = 0;
      for (; loading; n++) {
        await db.pool.query(
          `UPDATE crimes SET primary_type = 'THEFT', date = date + interval '1 day' WHERE id IN (SELECT id FROM crimes ORDER BY random() LIMIT 20)`,
        );
      }
      return n;
    })();
    const reads = (async () => {
      const seen: string[] = [];
      const client = await db.pool.connect();
      try {
        while (loading) {
          await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
          const { rows } = await client.query(
            `SELECT (SELECT count(*) FROM crimes)::int AS crimes, (SELECT sum(n) FROM crimes_by_day)::int AS by_day, (SELECT sum(n) FROM crimes_by_block)::int AS by_block`,
          );
          await client.query('COMMIT');
          if (rows[0].crimes !== rows[0].by_day || rows[0].crimes !== rows[0].by_block) seen.push(JSON.stringify(rows[0]));
        }
      } finally {
        client.release();
      }
      return seen;
    })();
    try {
      expect(await load(moved, 2_000)).toMatchObject({ inserted: 20_000 });
    } finally {
      loading = false;
    }
    expect(await writes).toBeGreaterThan(0);
    expect(await reads).toEqual([]);
    expect(await drift()).toEqual(none());
  }, 60_000);

  it('when the ingest is killed (kill -9) mid-load: the merged rows and their rollups agree, and the same command loads the rest', async () => {
    const file = tmp.file('killed.csv');
    await generateCrimes({ rows: 200_000, seed: 13, out: file });
    const text = readFileSync(file, 'utf8').replace(/^(\d+),/gm, (_, id: string) => `${Number(id) + 70_000_000},`);
    const rekeyed = tmp.file('killed-rekeyed.csv', text);
    // this file's ids only (the tests above stored some past 90,000,000)
    const loaded = () => count('SELECT count(*)::int AS n FROM crimes WHERE id BETWEEN 70000000 AND 79999999');
    // the command's batches are 100,000 rows: it is killed once the first has merged, while the rest loads
    const child = spawn(process.execPath, [path.resolve('dist/cli/main.js'), 'ingest', 'crimes', '--csv', rekeyed], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: db.url },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await pollUntil(async () => ((await loaded()) > 0 ? true : undefined), 120_000, 'the first merge');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // the server rolls the open transaction back when it finds the client gone
    await pollUntil(
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()`,
        )) === 0
          ? true
          : undefined,
      60_000,
      'the killed session to end',
    );
    const merged = await loaded(); // the first batch: 100,000 rows and the rest of the file chunk read with its last
    expect(merged).toBeGreaterThanOrEqual(100_000);
    expect(merged).toBeLessThan(200_000);
    expect(await drift()).toEqual(none());

    const again = await runCli(['ingest', 'crimes', '--csv', rekeyed], { DATABASE_URL: db.url });
    expect(again.code).toBe(0);
    expect(await loaded()).toBe(200_000);
    expect(await drift()).toEqual(none());
  }, 240_000);
});
