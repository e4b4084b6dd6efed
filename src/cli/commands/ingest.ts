// datadesk ingest crimes|stocks: load files or the portal's API into PostgreSQL.
// Only the commands' definitions live here: what they do (ingest-run.ts) loads when one runs.
import type { Command } from 'commander';
import { positiveInt } from '../options.js';
import type { CrimesOptions, StocksOptions } from './ingest-run.js';

export function registerIngest(program: Command): void {
  const ingest = program.command('ingest').description('load data into PostgreSQL (idempotent: re-running changes nothing)');

  ingest
    .command('crimes')
    .description("load Chicago crimes from the portal's CSV export (--csv) or its SODA API (--socrata)")
    .option('--csv <file>', 'a "Crimes - 2001 to Present" CSV export')
    .option('--socrata [url]', 'incremental sync from the SODA API (default: SOCRATA_URL)')
    .option('--rejects <file>', 'where rejected rows go (default: <file>.rejects.csv)')
    .option('--max-pages <n>', 'with --socrata: stop after n pages (resumable)', positiveInt)
    .action(async (opts: CrimesOptions) => (await import('./ingest-run.js')).runIngestCrimes(opts));

  ingest
    .command('stocks')
    .description('load daily A-share bars (BacktestBench columns) for one exchange')
    .requiredOption('--csv <file>', 'CSV with header ' + 'stock_code,name,short_name,trade_date,opening_price,...')
    .requiredOption('--exchange <name>', 'shanghai (SSE), shenzhen (SZSE) or beijing (BSE)')
    .option('--rejects <file>', 'where rejected rows go (default: <file>.rejects.csv)')
    .action(async (opts: StocksOptions) => (await import('./ingest-run.js')).runIngestStocks(opts));
}
