// datadesk generate crimes|stocks: realistic synthetic data in the real
// formats. The generators load when one runs, not for every command.
import path from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../core/errors.js';
import type { Exchange } from '../../ingest/stocks/stock-table.js';
import { isoDate, nonNegativeInt, positiveInt, year } from '../options.js';

export function registerGenerate(program: Command): void {
  const generate = program.command('generate').description('write realistic synthetic data files (same seed, same file)');

  generate
    .command('crimes')
    .description("Chicago crimes in the portal's CSV export format")
    .requiredOption('--rows <n>', 'how many incidents (the real data has about 8.5M)', positiveInt)
    .requiredOption('--out <file>', 'the CSV file to write')
    .option('--seed <s>', 'random seed', nonNegativeInt, 1)
    .option('--from-year <y>', 'first year', year, 2001)
    .option('--to-year <y>', 'last year', year, 2025)
    .action(async (opts: { rows: number; out: string; seed: number; fromYear: number; toYear: number }) => {
      if (opts.fromYear > opts.toYear) throw new UserError(`--from-year ${opts.fromYear} is after --to-year ${opts.toYear}`);
      const [{ generateCrimes }, { progressBar }] = await Promise.all([
        import('../../ingest/generate/crimes.js'),
        import('../progress.js'),
      ]);
      const bar = progressBar('Generating crimes', 'rows');
      const started = performance.now();
      try {
        await generateCrimes({ ...opts, onProgress: (d, t) => bar.update(d, t) });
      } finally {
        bar.stop();
      }
      const s = (performance.now() - started) / 1000;
      process.stdout.write(`Wrote ${opts.rows.toLocaleString('en-US')} crimes to ${opts.out} in ${s.toFixed(1)} s\n`);
      process.stdout.write(`Load them with: datadesk ingest crimes --csv ${opts.out}\n`);
    });

  generate
    .command('stocks')
    .description('daily A-share bars, one CSV per exchange (BacktestBench columns)')
    .requiredOption('--tickers <n>', 'how many companies (BacktestBench: 5,401)', positiveInt)
    .option('--from <date>', 'first day', isoDate, '2020-01-02')
    .option('--to <date>', 'last day', isoDate, '2025-09-30')
    .option('--seed <s>', 'random seed', nonNegativeInt, 1)
    .option('--out <dir>', 'output folder', path.join('.datadesk', 'generated'))
    .action(async (opts: { tickers: number; from: string; to: string; seed: number; out: string }) => {
      if (opts.from > opts.to) throw new UserError(`--from ${opts.from} is after --to ${opts.to}`);
      const [{ generateStocks }, { EXCHANGES }, { progressBar }] = await Promise.all([
        import('../../ingest/generate/stocks.js'),
        import('../../ingest/stocks/stock-table.js'),
        import('../progress.js'),
      ]);
      const bar = progressBar('Generating stocks', 'tickers');
      const started = performance.now();
      let result;
      try {
        result = await generateStocks({ ...opts, outDir: opts.out, onProgress: (d, t) => bar.update(d, t) });
      } finally {
        bar.stop();
      }
      const s = (performance.now() - started) / 1000;
      const total = Object.values(result.rows).reduce((a, b) => a + b, 0);
      process.stdout.write(
        `Wrote ${total.toLocaleString('en-US')} daily bars of ${opts.tickers} tickers over ${result.tradingDays} trading days in ${s.toFixed(1)} s:\n`,
      );
      for (const exchange of Object.keys(EXCHANGES) as Exchange[]) {
        process.stdout.write(
          `  ${result.files[exchange]} (${result.rows[exchange].toLocaleString('en-US')} rows): datadesk ingest stocks --exchange ${exchange} --csv ${result.files[exchange]}\n`,
        );
      }
    });
}
