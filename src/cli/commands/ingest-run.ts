// What `datadesk ingest crimes|stocks` do (their options: ingest.ts). Loaded
// when one runs, so `datadesk --help` and the other commands do not load them.
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { ingestCsv, type CsvSource, type IngestSummary } from '../../ingest/csv-ingest.js';
import { CRIMES_SPEC } from '../../ingest/crimes/crime-table.js';
import { portalCsvSource } from '../../ingest/crimes/portal-csv.js';
import { syncSocrata } from '../../ingest/crimes/socrata-sync.js';
import { markInterruptedRuns } from '../../ingest/run-log.js';
import { parseExchange, stockCsvSource, stockSpec } from '../../ingest/stocks/stock-table.js';
import type { TableSpec } from '../../ingest/table-spec.js';
import { commandContext, withDatabase, type CommandContext } from '../context.js';
import type { Database } from '../../db/database.js';
import { progressBar } from '../progress.js';
import { tablesChangedByLoad } from '../../db/rollups.js';

const n = (x: number) => x.toLocaleString('en-US');

function printSummary(what: string, s: IngestSummary): void {
  process.stdout.write(
    `${what}: ${n(s.rowsRead)} rows read; ${n(s.inserted)} loaded, ${n(s.updated)} updated, ` +
      `${n(s.unchanged)} unchanged, ${n(s.rejected)} rejected in ${s.seconds.toFixed(1)} s ` +
      `(${n(Math.round(s.rowsRead / Math.max(s.seconds, 1e-3)))} rows/s)\n`,
  );
  if (s.dialect) process.stdout.write(`${s.dialect[0].toUpperCase()}${s.dialect.slice(1)}\n`);
  if (s.rejectsPath) process.stdout.write(`Rejected rows, with line numbers and reasons: ${s.rejectsPath}\n`);
}

/** Runs left `running` by a process that was killed are marked failed before a new load starts. */
async function closeInterruptedRuns(ctx: CommandContext, db: Database): Promise<void> {
  const marked = await markInterruptedRuns(db.write);
  if (marked) ctx.logger.warn(`marked ${marked} interrupted ingest run${marked === 1 ? '' : 's'} as failed (see ingest_runs)`);
}

async function loadCsv(file: string, spec: TableSpec, source: CsvSource, rejects: string | undefined, what: string) {
  const ctx = commandContext();
  const summary = await withDatabase(ctx, async (db) => {
    await closeInterruptedRuns(ctx, db);
    const bar = progressBar(`Loading ${path.basename(file)}`, 'bytes');
    try {
      const s = await ingestCsv({
        pool: db.write,
        file,
        spec,
        source,
        rejectsPath: rejects ?? `${file}.rejects.csv`,
        onProgress: (done, total) => bar.update(done, total),
      });
      // the planner's statistics, and the visibility map: without it an index-only scan visits the heap anyway
      // (a count of one year of 8.5M crimes read every row); autovacuum gets to a fresh bulk load too late
      await db.write.query(`VACUUM (ANALYZE) ${tablesChangedByLoad(spec.table).join(', ')}`);
      return s;
    } finally {
      bar.stop();
    }
  });
  printSummary(what, summary);
}

export interface CrimesOptions {
  csv?: string;
  socrata?: string | boolean;
  rejects?: string;
  maxPages?: number;
}

export async function runIngestCrimes(opts: CrimesOptions): Promise<void> {
  if (Boolean(opts.csv) === Boolean(opts.socrata)) throw new UserError('Give exactly one of --csv FILE or --socrata [URL]');
  if (opts.csv) return loadCsv(opts.csv, CRIMES_SPEC, portalCsvSource, opts.rejects, 'Crimes');
  const ctx = commandContext();
  const url = typeof opts.socrata === 'string' ? opts.socrata : ctx.config.socrata.url;
  const s = await withDatabase(ctx, async (db) => {
    await closeInterruptedRuns(ctx, db);
    return syncSocrata({
      pool: db.write,
      url,
      appToken: ctx.config.socrata.appToken,
      pageSize: ctx.config.socrata.pageSize,
      rejectsPath: opts.rejects ?? path.resolve(ctx.config.home, 'socrata.rejects.csv'),
      logger: ctx.logger,
      maxPages: opts.maxPages,
    });
  });
  process.stdout.write(
    `Portal sync: ${n(s.fetched)} records in ${s.pages} pages; ${n(s.inserted)} loaded, ${n(s.updated)} updated, ` +
      `${n(s.unchanged)} unchanged, ${n(s.rejected)} rejected; ${s.complete ? 'up to date' : 'stopped early, resumable'}` +
      `${s.cursor ? ` (through updated_on ${s.cursor.updatedOn}, id ${s.cursor.id})` : ''}\n`,
  );
  if (s.rejectsPath) process.stdout.write(`Rejected records, with positions and reasons: ${s.rejectsPath}\n`);
}

export interface StocksOptions {
  csv: string;
  exchange: string;
  rejects?: string;
}

export async function runIngestStocks(opts: StocksOptions): Promise<void> {
  const exchange = parseExchange(opts.exchange);
  await loadCsv(opts.csv, stockSpec(exchange), stockCsvSource, opts.rejects, `Stocks (${exchange})`);
}
