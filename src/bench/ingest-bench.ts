// npm run bench -- ingest [--rows N]: generate N crimes (8.5M, the real size, by
// default) and load the file three times into an empty table, paired in one run
// (issue 35: rollups kept at most 1.3x the time without them, the whole ingest
// within 1.5x a plain COPY): a plain COPY (the floor), `ingest crimes` without
// the rollups, `ingest crimes` keeping them exact; then the ratios, the rollups'
// sizes, a sync batch, and the same file again (the idempotent re-run).
// npm run bench -- ingest-damaged [--rows N]: the same file clean and with 1%
// of its lines damaged, each loaded into an empty table: both times, and the
// rejects checked against the damaged lines.
import { createReadStream, rmSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { ingestCsv, type IngestSummary } from '../ingest/csv-ingest.js';
import type { TableSpec } from '../ingest/table-spec.js';
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
    const floor = await plainCopy(db.pool, file);
    console.log(`plain COPY of the file into crimes (empty, its indexes, no rollups: the floor): ${timing(floor, rows)}`);
    const without = await timedIngest(db.pool, file, { ...CRIMES_SPEC, derived: undefined });
    console.log(`ingest crimes without rollups (their triggers off, no merge): ${timing(without.seconds, rows)}`);
    if (!withRollups) {
      t = performance.now();
      await rebuildRollups(db.pool);
      console.log(`rollups counted afresh after the load (${ROLLUPS.length}): ${((performance.now() - t) / 1000).toFixed(1)} s`);
    } else {
      const rssBefore = process.memoryUsage().rss;
      let peakRss = rssBefore;
      const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 250);
      const first = await timedIngest(db.pool, file, CRIMES_SPEC);
      clearInterval(sample);
      console.log(
        `ingest crimes with its ${ROLLUPS.length} rollups kept exact: ${fmt(first.inserted)} loaded, ${first.rejected} rejected in ` +
          `${timing(first.seconds, rows)}; peak RSS of this process ${(peakRss / 2 ** 20).toFixed(0)} MiB; rollups exact: ${(await rollupsExact(db.pool)) ? 'yes' : 'NO'}`,
      );
      console.log(
        `ingest ratios (${fmt(rows)} rows, ${ROLLUPS.length} rollups, paired in this run): with rollups / without ${(first.seconds / without.seconds).toFixed(2)}x (goal 1.3x), ` +
          `with rollups / plain COPY ${(first.seconds / floor).toFixed(2)}x (goal 1.5x), without / plain COPY ${(without.seconds / floor).toFixed(2)}x; ` +
          `command: npm run bench -- ingest --rows ${rows}`,
      );
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
  } finally {
    await db.close();
    rmSync(file, { force: true });
  }
}

/** The time, the rate, and the machine's 1-minute load average when it ended (the figures move with it on a shared machine). */
const timing = (seconds: number, rows: number) =>
  `${seconds.toFixed(1)} s (${fmt(rows / seconds)} rows/s; load ${os.loadavg()[0].toFixed(1)})`;

/** The floor: the file as it is, COPYed (as psql's \\copy does) into the empty table with all its indexes, no rollup triggers. */
async function plainCopy(pool: pg.Pool, file: string): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('TRUNCATE crimes');
    await client.query(`SET DateStyle = 'ISO, MDY'`); // the portal's 03/18/2015 08:15:00 PM
    await client.query('ALTER TABLE crimes DISABLE TRIGGER USER');
    const t = performance.now();
    try {
      await pipeline(createReadStream(file), client.query(copyFrom('COPY crimes FROM STDIN (FORMAT csv, HEADER)')));
      return (performance.now() - t) / 1000;
    } finally {
      await client.query('ALTER TABLE crimes ENABLE TRIGGER USER');
      await client.query('RESET DateStyle');
    }
  } finally {
    client.release();
  }
}

/** `ingest crimes` of the file into an empty table; without derived tables in the spec, their triggers are off for the load. */
async function timedIngest(pool: pg.Pool, file: string, spec: TableSpec): Promise<IngestSummary> {
  await pool.query('TRUNCATE crimes');
  if (!spec.derived) await pool.query('ALTER TABLE crimes DISABLE TRIGGER USER');
  try {
    return await ingestCsv({ pool, file, spec, source: portalCsvSource, rejectsPath: `${file}.rejects.csv` });
  } finally {
    if (!spec.derived) await pool.query('ALTER TABLE crimes ENABLE TRIGGER USER');
  }
}

/** Every rollup holds every incident (the differential tests check each group; this is the bench's quick look). */
async function rollupsExact(pool: pg.Pool): Promise<boolean> {
  const total = Number((await pool.query('SELECT count(*) AS n FROM crimes')).rows[0].n);
  for (const r of ROLLUPS) {
    const { rows } = await pool.query(`SELECT coalesce(sum(n), 0) AS n, count(*) FILTER (WHERE n <= 0) AS empty FROM ${r.table}`);
    if (Number(rows[0].n) !== total || Number(rows[0].empty) !== 0) return false;
  }
  return true;
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
