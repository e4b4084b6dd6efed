// npm run bench -- ingest [--rows N]: generate N crimes (8.5M, the real size, by
// default), load them into an empty table, then load the same file again (the
// idempotent re-run), printing time and rows/s for each step.
// npm run bench -- ingest-damaged [--rows N]: the same file clean and with 1%
// of its lines damaged, each loaded into an empty table: both times, and the
// rejects checked against the damaged lines.
import { rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { ingestCsv } from '../ingest/csv-ingest.js';
import { CRIMES_SPEC } from '../ingest/crimes/crime-table.js';
import { portalCsvSource } from '../ingest/crimes/portal-csv.js';
import { generateCrimes } from '../ingest/generate/crimes.js';
import { DAMAGE_KINDS, damageCsv, type DamageKind } from '../ingest/generate/damage.js';
import { readCsvRecords } from '../ingest/csv-records.js';
import { openBenchDatabase } from './bench-database.js';
import { syncBench } from './sync-bench.js';
import { ROLLUPS, rebuildRollups, tablesChangedByLoad } from '../db/rollups.js';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function ingestBench(config: Config, logger: Logger, rows: number, rerun: boolean, withRollups: boolean): Promise<void> {
  const file = path.join(os.tmpdir(), `datadesk-bench-crimes-${rows}.csv`);
  let t = performance.now();
  await generateCrimes({ rows, seed: 1, out: file });
  const genSeconds = (performance.now() - t) / 1000;
  const mb = statSync(file).size / 1e6;
  console.log(`generate: ${fmt(rows)} rows, ${mb.toFixed(0)} MB in ${genSeconds.toFixed(1)} s (${fmt(rows / genSeconds)} rows/s)`);

  const db = await openBenchDatabase(config, logger, true);
  try {
    // without rollups: the triggers that keep them are off for the load, and they are counted afresh after it
    if (!withRollups) await db.pool.query('ALTER TABLE crimes DISABLE TRIGGER USER');
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);
    t = performance.now();
    const first = await ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath: `${file}.rejects.csv` });
    const loadSeconds = (performance.now() - t) / 1000;
    clearInterval(sample);
    console.log(
      `ingest (empty table, 4 indexes + primary key): ${fmt(first.inserted)} loaded, ${first.rejected} rejected in ` +
        `${loadSeconds.toFixed(1)} s (${fmt(rows / loadSeconds)} rows/s); peak RSS of this process ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
    if (!withRollups) {
      await db.pool.query('ALTER TABLE crimes ENABLE TRIGGER USER');
      t = performance.now();
      await rebuildRollups(db.pool);
      console.log(`rollups counted afresh after the load (${ROLLUPS.length}): ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    t = performance.now();
    await db.pool.query(`VACUUM (ANALYZE) ${tablesChangedByLoad('crimes').join(', ')}`);
    console.log(`vacuum (analyze) of crimes and its rollups: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const sizes = await db.pool.query(
      `SELECT c.relname AS name, c.reltuples::bigint AS rows, pg_total_relation_size(c.oid) AS bytes FROM pg_class c WHERE c.relname = ANY($1) ORDER BY bytes DESC`,
      [ROLLUPS.map((r) => r.table)],
    );
    const totalMb = sizes.rows.reduce((a, r) => a + Number(r.bytes), 0) / 2 ** 20;
    console.log(
      `rollups on disk (with indexes): ${totalMb.toFixed(0)} MiB; ${sizes.rows.map((r) => `${r.name} ${fmt(Number(r.rows))} rows ${(Number(r.bytes) / 2 ** 20).toFixed(0)} MiB`).join(', ')}`,
    );
    await syncBench(db.pool, file);
    if (rerun) {
      t = performance.now();
      const second = await ingestCsv({
        pool: db.pool,
        file,
        spec: CRIMES_SPEC,
        source: portalCsvSource,
        rejectsPath: `${file}.rejects.csv`,
      });
      const s = (performance.now() - t) / 1000;
      console.log(
        `ingest again (same file): ${fmt(second.inserted)} loaded, ${fmt(second.updated)} updated, ${fmt(second.unchanged)} unchanged in ` +
          `${s.toFixed(1)} s (${fmt(rows / s)} rows/s)`,
      );
    }
    const size = await db.pool.query(`SELECT pg_size_pretty(pg_table_size('crimes')) AS t, pg_size_pretty(pg_indexes_size('crimes')) AS i`);
    console.log(`table size ${size.rows[0].t}, indexes ${size.rows[0].i}`);
    console.log(`total: ${(genSeconds + loadSeconds).toFixed(1)} s for generate + load of ${fmt(rows)} rows`);
  } finally {
    await db.close();
    rmSync(file, { force: true });
  }
}

/** Which damage a reject reason names (the reasons the reader and the row checks give). */
function damageOf(reason: string): DamageKind | 'other' {
  if (reason.includes('unterminated quote')) return 'stray quote';
  if (reason.startsWith('NUL byte')) return 'NUL byte';
  if (reason.startsWith('invalid UTF-8')) return 'invalid UTF-8';
  if (/characters, more than the \d+ a value may have/.test(reason)) return 'oversized value';
  if (/^expected \d+ fields, found \d+$/.test(reason)) return 'wrong column count';
  return 'other';
}

export async function ingestDamagedBench(config: Config, logger: Logger, rows: number): Promise<void> {
  const clean = path.join(os.tmpdir(), `datadesk-bench-crimes-${rows}-clean.csv`);
  const damagedFile = path.join(os.tmpdir(), `datadesk-bench-crimes-${rows}-damaged.csv`);
  let t = performance.now();
  await generateCrimes({ rows, seed: 1, out: clean });
  console.log(
    `generate: ${fmt(rows)} rows, ${(statSync(clean).size / 1e6).toFixed(0)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  t = performance.now();
  const damaged = await damageCsv({ input: clean, output: damagedFile, every: 100 });
  console.log(
    `damage: ${fmt(damaged.length)} lines (1%), ${fmt(damaged.length / DAMAGE_KINDS.length)} each of ${DAMAGE_KINDS.join(', ')} ` +
      `in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const db = await openBenchDatabase(config, logger, true);
  try {
    for (const [label, file] of [
      ['clean', clean],
      ['damaged', damagedFile],
    ] as const) {
      await db.pool.query('TRUNCATE crimes');
      const rejectsPath = `${file}.rejects.csv`;
      rmSync(rejectsPath, { force: true });
      let peakRss = process.memoryUsage().rss;
      const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);
      t = performance.now();
      const s = await ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath });
      const seconds = (performance.now() - t) / 1000;
      clearInterval(sample);
      console.log(
        `ingest ${label} (empty table): ${fmt(s.rowsRead)} rows read, ${fmt(s.inserted)} loaded, ${fmt(s.rejected)} rejected ` +
          `in ${seconds.toFixed(1)} s (${fmt(s.rowsRead / seconds)} rows/s); peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
      );
      if (label === 'damaged') await checkRejects(rejectsPath, damaged);
      rmSync(rejectsPath, { force: true });
    }
  } finally {
    await db.close();
    rmSync(clean, { force: true });
    rmSync(damagedFile, { force: true });
  }
}

async function checkRejects(rejectsPath: string, damaged: { line: number; kind: DamageKind }[]): Promise<void> {
  const expected = new Map(damaged.map((d) => [d.line, d.kind]));
  const byKind = new Map<string, number>();
  let wrong = 0;
  let header = true;
  for await (const r of readCsvRecords(rejectsPath)) {
    if (header || !r.fields) {
      header = false;
      continue;
    }
    const kind = damageOf(r.fields[1]);
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    if (expected.get(Number(r.fields[0])) === kind) expected.delete(Number(r.fields[0]));
    else wrong++;
  }
  console.log(`rejects by damage: ${[...byKind].map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}`);
  console.log(
    `rejects on the damaged line with its damage named: ${expected.size === 0 && wrong === 0 ? 'all' : `no (${expected.size} damaged lines not rejected, ${wrong} other rejects)`}`,
  );
}
