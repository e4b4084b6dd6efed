// npm run bench -- ingest [--rows N]: generate N crimes (8.5M, the real size, by
// default), load them into an empty table, then load the same file again (the
// idempotent re-run), printing time and rows/s for each step.
import { rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { ingestCsv } from '../ingest/csv-ingest.js';
import { CRIMES_SPEC } from '../ingest/crimes/crime-table.js';
import { portalCsvSource } from '../ingest/crimes/portal-csv.js';
import { generateCrimes } from '../ingest/generate/crimes.js';
import { openBenchDatabase } from './bench-database.js';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function ingestBench(config: Config, logger: Logger, rows: number, rerun: boolean): Promise<void> {
  const file = path.join(os.tmpdir(), `datadesk-bench-crimes-${rows}.csv`);
  let t = performance.now();
  await generateCrimes({ rows, seed: 1, out: file });
  const genSeconds = (performance.now() - t) / 1000;
  const mb = statSync(file).size / 1e6;
  console.log(`generate: ${fmt(rows)} rows, ${mb.toFixed(0)} MB in ${genSeconds.toFixed(1)} s (${fmt(rows / genSeconds)} rows/s)`);

  const db = await openBenchDatabase(config, logger, true);
  try {
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
    t = performance.now();
    await db.pool.query('ANALYZE crimes');
    console.log(`analyze: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    if (rerun) {
      t = performance.now();
      const second = await ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath: `${file}.rejects.csv` });
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
