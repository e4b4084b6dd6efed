// A portal sync's batch at the real size: 10,000 rows, half of them new and half
// newer versions of stored ones (another type, a later updated_on), landed the
// way the SODA sync lands them (one upsert batch). Two such batches, one keeping
// the rollups (the batch's merge into each) and one without (no merge, triggers
// off): the difference is the rollups' refresh.
// The rollups are counted afresh afterwards (the second batch skipped them).
import { closeSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import type pg from 'pg';
import { rebuildRollups } from '../db/rollups.js';
import { ingestCsv } from '../ingest/csv-ingest.js';
import { CRIMES_SPEC } from '../ingest/crimes/crime-table.js';
import { portalCsvSource } from '../ingest/crimes/portal-csv.js';
import type { TableSpec } from '../ingest/table-spec.js';

const SYNC_ROWS = 10_000;

/** The start of a file (the loaded file is 2 GB: more than one string can hold). */
function firstBytes(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

async function syncBatch(
  pool: pg.Pool,
  loadedFile: string,
  sample: number,
  spec: TableSpec = CRIMES_SPEC,
): Promise<{ seconds: number; inserted: number; updated: number }> {
  const {
    rows: [{ max }],
  } = await pool.query<{ max: number }>('SELECT max(id) AS max FROM crimes');
  const { rows: stored } = await pool.query<{ id: number }>(
    `SELECT id FROM crimes TABLESAMPLE SYSTEM (1) REPEATABLE (${sample}) LIMIT ${SYNC_ROWS / 2}`,
  );
  // the loaded file's first lines, re-keyed: new ids for half, stored ids (another type, updated now) for the rest
  const lines = firstBytes(loadedFile, 8 << 20)
    .split('\n')
    .slice(0, SYNC_ROWS + 1);
  const batch = lines.slice(1).map((line, i) => {
    const rest = line.slice(line.indexOf(','));
    if (i < SYNC_ROWS / 2) return `${max + 1 + i}${rest}`;
    const changed = rest.replace(/,(THEFT|BATTERY|NARCOTICS|ASSAULT|CRIMINAL DAMAGE),/, ',ROBBERY,');
    return `${stored[i - SYNC_ROWS / 2].id}${changed.replace(/,\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d [AP]M(,[^,]*,[^,]*,(?:"[^"]*")?)$/, ',11/30/2026 11:00:00 PM$1')}`;
  });
  const file = `${loadedFile}.sync-${sample}.csv`;
  writeFileSync(file, [lines[0], ...batch].join('\n') + '\n');
  try {
    const t = performance.now();
    const s = await ingestCsv({ pool, file, spec, source: portalCsvSource, rejectsPath: `${file}.rejects.csv` });
    return { seconds: (performance.now() - t) / 1000, inserted: s.inserted, updated: s.updated };
  } finally {
    rmSync(file, { force: true });
    rmSync(`${file}.rejects.csv`, { force: true });
  }
}

export async function syncBench(pool: pg.Pool, loadedFile: string): Promise<void> {
  const withRollups = await syncBatch(pool, loadedFile, 7);
  await pool.query('ALTER TABLE crimes DISABLE TRIGGER USER');
  let without;
  try {
    without = await syncBatch(pool, loadedFile, 11, { ...CRIMES_SPEC, derived: undefined }); // no rollup merge either
  } finally {
    await pool.query('ALTER TABLE crimes ENABLE TRIGGER USER');
  }
  const fmt = (n: number) => n.toLocaleString('en-US');
  console.log(
    `sync of ${fmt(SYNC_ROWS)} rows (${fmt(withRollups.inserted)} new, ${fmt(withRollups.updated)} updated): ${withRollups.seconds.toFixed(2)} s with the rollups' refresh, ` +
      `${without.seconds.toFixed(2)} s without (${fmt(without.inserted)} new, ${fmt(without.updated)} updated): refresh ${(withRollups.seconds - without.seconds).toFixed(2)} s`,
  );
  await rebuildRollups(pool);
}
