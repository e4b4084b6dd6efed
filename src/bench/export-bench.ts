// npm run bench -- export: "Download CSV" of a 1,000,000-row answer on the
// benchmark database (its crimes, five times over), through the same code as
// the playground's link, into a sink that only counts bytes: the time, the
// rows, and the process's peak RSS, which must stay flat because it streams.
import { Writable } from 'node:stream';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { writeCsvExport } from '../export/csv-export.js';
import { openBenchDatabase } from './bench-database.js';

export async function exportBench(config: Config, logger: Logger, rows: number): Promise<void> {
  const bench = await openBenchDatabase(config, logger, false);
  try {
    const { rows: have } = await bench.pool.query('SELECT count(*)::int AS n FROM crimes');
    if (!have[0].n) throw new Error('the benchmark database has no crimes: run `npm run bench -- load` or `-- ingest` first');
    const copies = Math.ceil(rows / have[0].n);
    const sql = `SELECT c.*, v.n AS copy FROM crimes c CROSS JOIN (VALUES ${Array.from({ length: copies }, (_, i) => `(${i + 1})`).join(', ')}) AS v(n)`;
    let bytes = 0;
    let lines = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        done();
      },
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = performance.now();
    await writeCsvExport({ pool: bench.pool, rowLimit: rows, statementTimeoutMs: 600_000 }, { kind: 'query', sql }, sink);
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const mb = (n: number) => `${Math.round(n / 1_048_576)} MB`;
    console.log(
      `export: ${(lines - 1).toLocaleString('en-US')} rows (limit ${rows.toLocaleString('en-US')}), ${mb(bytes)} of CSV in ${seconds.toFixed(1)} s (${Math.round((lines - 1) / seconds).toLocaleString('en-US')} rows/s); RSS ${mb(before)} before, peak ${mb(peak)}`,
    );
  } finally {
    await bench.close();
  }
}
