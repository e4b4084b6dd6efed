// npm run bench -- <name> [options]: prints figures; never a pass/fail test.
import { Command } from 'commander';
import { loadConfigFromProcess } from '../config/load.js';
import { createLogger } from '../core/logger.js';
import { positiveInt } from '../cli/options.js';
import { ingestBench, ingestDamagedBench } from './ingest-bench.js';
import { indexBench } from './index-bench.js';
import { backtestBench, loadStocksIfEmpty } from './backtest-bench.js';
import { eventLoopBench } from './event-loop-bench.js';
import { sqlBench } from './sql-bench.js';
import { slackBench } from './slack-bench.js';
import { narrationBench } from './narration-bench.js';
import { ensureCrimes, loadBench } from './load-bench.js';
import { playgroundLoadBench } from './playground-load.js';
import { openBenchDatabase } from './bench-database.js';
import pg from 'pg';
import { APP_SEARCH_PATH } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { exportBench } from './export-bench.js';

const program = new Command('bench').description('Data Desk benchmarks: each prints its figures');
program
  .command('ingest')
  .description(
    'generate and load crime rows (default 8.5M, the real size) with their rollups; rows/s, total time, rollup sizes, a 10,000-row sync',
  )
  .option('--rows <n>', 'rows to generate and load', positiveInt, 8_500_000)
  .option('--no-rerun', 'skip loading the same file a second time')
  .option('--no-rollups', 'load with the rollup triggers off, then count the rollups afresh (for comparison)')
  .action(async (opts: { rows: number; rerun: boolean; rollups: boolean }) => {
    const config = loadConfigFromProcess();
    await ingestBench(config, createLogger(config.logLevel), opts.rows, opts.rerun, opts.rollups);
  });
program
  .command('ingest-damaged')
  .description('load a generated crime file (default 1M rows) clean and with 1% damaged lines; both times and the rejects')
  .option('--rows <n>', 'rows to generate', positiveInt, 1_000_000)
  .action(async (opts: { rows: number }) => {
    const config = loadConfigFromProcess();
    await ingestDamagedBench(config, createLogger(config.logLevel), opts.rows);
  });
program
  .command('indexes')
  .description('the index-serving queries with and without the crime indexes (after `ingest`)')
  .action(async () => {
    const config = loadConfigFromProcess();
    await indexBench(config, createLogger(config.logLevel));
  });

program
  .command('backtest')
  .description(
    'one 1,395-day backtest (engine, median); ticker selection over all tickers (agent, with fetch): first and cached runs, event-loop delay, RSS',
  )
  .option('--tickers <n>', 'tickers to load into the benchmark database when it has none', positiveInt, 5_401)
  .option('--legacy', 'the whole-market runs as before the worker threads and the bar cache, for comparison')
  .option('--trader', "only issue 37's trader runs: a portfolio and a whole-market scan, each with and without costs and stops")
  .action(async (opts: { tickers: number; legacy?: boolean; trader?: boolean }) => {
    const config = loadConfigFromProcess();
    await backtestBench(config, createLogger(config.logLevel), opts.tickers, opts.legacy ?? false, opts.trader ?? false);
  });

program
  .command('event-loop')
  .description(
    "issue 35's whole-market backtest through the agent in this process: event-loop delay and /healthz p99/max (the bound: 100 ms); --profile names what held the main thread",
  )
  .option('--database-url <url>', 'a database with the stock tables (default: the benchmark database)')
  .option('--tickers <n>', 'tickers to load when the database has none', positiveInt, 5_401)
  .option('--runs <n>', 'runs (the first fills the bar cache)', positiveInt, 2)
  .option('--profile', "the main thread's CPU profile over the runs: its heaviest functions")
  .action(async (opts: { databaseUrl?: string; tickers: number; runs: number; profile?: boolean }) => {
    const config = loadConfigFromProcess();
    const logger = createLogger('warn');
    const bench = opts.databaseUrl ? undefined : await openBenchDatabase(config, logger, false);
    const pool = bench?.pool ?? new pg.Pool({ connectionString: opts.databaseUrl, max: 4, options: APP_SEARCH_PATH });
    try {
      if (opts.databaseUrl) await migrate(pool);
      await loadStocksIfEmpty(pool, opts.tickers);
      await eventLoopBench(pool, logger, { runs: opts.runs, profile: opts.profile ?? false });
    } finally {
      await (bench ? bench.close() : pool.end());
    }
  });

program
  .command('sql')
  .description(
    'relevance gate latency, validate/run/narrate time of the benchmark SQL, and the plan answers from rollups and from crimes, one at a time and --concurrent at once (after `ingest --rows N`)',
  )
  .option('--rows <n>', 'the crimes the benchmark database must hold (load them with `ingest --rows N`)', positiveInt)
  .option('--concurrent <n>', 'plan questions asked at once', positiveInt, 200)
  .action(async (opts: { rows?: number; concurrent: number }) => {
    const config = loadConfigFromProcess();
    await sqlBench(config, createLogger('warn'), opts);
  });

program
  .command('load')
  .description(
    'two serve processes under N Slack mentions (some delivered twice) and one whole-market backtest, one killed mid-run: ack and /healthz p99, answers/s, duplicates, missing',
  )
  .option('--events <n>', 'Slack mentions to send', positiveInt, 200)
  .option('--concurrency <n>', 'mentions in flight at once', positiveInt, 16)
  .option('--tickers <n>', 'tickers to load into the benchmark database when it has none', positiveInt, 5_401)
  .option(
    '--busy <share>',
    "put this share of the mentions (0-1) in one channel, keep the per-channel cap, and print the busy and the quiet channels' waits",
    (v) => {
      const share = Number(v);
      if (!(share > 0 && share < 1)) throw new Error(`--busy takes a share between 0 and 1, not "${v}"`);
      return share;
    },
  )
  .option('--classic', 'a Slack without streaming: each answer is a placeholder message edited into the answer')
  .action(async (opts: { events: number; concurrency: number; tickers: number; busy?: number; classic?: boolean }) => {
    const config = loadConfigFromProcess();
    await loadBench(config, createLogger(config.logLevel), opts);
  });

program
  .command('playground')
  .description(
    "questions through the playground's HTTP API to one serve, one at a time and N at once (each its own thread): end-to-end p50/p99, answers/s, errors, serve's CPU per answer, the cost per stage",
  )
  .option('--questions <n>', 'questions asked at once', positiveInt, 200)
  .option('--serial <n>', 'questions asked one at a time first', positiveInt, 50)
  .option(
    '--database-url <url>',
    'a database with crimes and its rollups (default: the benchmark database, 200,000 generated rows if empty)',
  )
  .option('--worker-concurrency <n>', "serve's WORKER_CONCURRENCY", positiveInt)
  .option('--cpu-prof <dir>', "write serve's CPU profile (node --cpu-prof) into this folder")
  .option('--mix <kind>', "shapes: eight question shapes repeated; benchmarks: the benchmark files' opening questions", 'shapes')
  .action(
    async (opts: {
      questions: number;
      serial: number;
      databaseUrl?: string;
      workerConcurrency?: number;
      cpuProf?: string;
      mix: string;
    }) => {
      if (opts.mix !== 'shapes' && opts.mix !== 'benchmarks') throw new Error(`--mix is shapes or benchmarks, not ${opts.mix}`);
      let databaseUrl = opts.databaseUrl;
      if (databaseUrl) {
        // a database of your own (the 8.5M-row one): migrated, and given generated crimes only when it has none
        const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, options: APP_SEARCH_PATH });
        await migrate(pool);
        await ensureCrimes(pool, 200_000);
        await pool.end();
      } else {
        const config = loadConfigFromProcess();
        const bench = await openBenchDatabase(config, createLogger(config.logLevel), false);
        await ensureCrimes(bench.pool, 200_000);
        databaseUrl = bench.url;
        await bench.close();
      }
      await playgroundLoadBench({ ...opts, mix: opts.mix, databaseUrl, cpuProfileDir: opts.cpuProf });
    },
  );

program
  .command('export')
  .description('"Download CSV" of a 1,000,000-row answer (benchmark database): time, rows/s and peak RSS (it streams)')
  .option('--rows <n>', 'rows to export', positiveInt, 1_000_000)
  .action(async (opts: { rows: number }) => {
    const config = loadConfigFromProcess();
    await exportBench(config, createLogger(config.logLevel), opts.rows);
  });

program
  .command('narration')
  .description('the facts and narration of a free-SQL result of 100 to 10,000 rows (median ms)')
  .action(() => narrationBench());

program
  .command('slack')
  .description('ack latency of signed Slack events and slash commands (p50/p99)')
  .option('--requests <n>', 'requests of each kind', positiveInt, 300)
  .action(async (opts: { requests: number }) => {
    const config = loadConfigFromProcess();
    await slackBench(config, createLogger('warn'), opts.requests);
  });

program
  .parseAsync(process.argv)
  .then(() => process.exit(0))
  .catch((error: Error) => {
    console.error(`bench: ${error.message}`);
    process.exit(1);
  });
