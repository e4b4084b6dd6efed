// npm run bench -- backtest: one 1,395-day backtest with all seven KPIs (the
// engine alone, median of many runs), then ticker selection over every ticker
// of the benchmark database through the whole agent, fetch included: the first
// run (the bar cache empty: it loads the tables) and the next ones (served
// from the cache), with what the event loop went through meanwhile (delay
// p99/max from perf_hooks, and a /healthz on this process polled every 20 ms)
// and RSS before and after. `--legacy` runs the way it was before the worker
// threads and the cache (bulk COPY per scan, engine on the event loop) for
// comparison, in its own process. Loads 5,401 synthetic tickers
// (BacktestBench's size) into datadesk_bench first if it has none.
import { median } from './stats.js';
import os from 'node:os';
import path from 'node:path';
import { rmSync } from 'node:fs';
import type pg from 'pg';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { runBacktest, type BacktestOutcome } from '../agents/backtest/agent.js';
import { fetchBars, fetchManyBars, resolveTickers } from '../agents/backtest/retrieval.js';
import { runSpec } from '../backtest/run-spec.js';
import { parseRuleSyntax } from '../backtest/rule-syntax.js';
import { barCacheStats } from '../backtest/bar-cache.js';
import { destroyWorkerPool, poolSize } from '../backtest/threads/pool.js';
import { ingestCsv } from '../ingest/csv-ingest.js';
import { generateStocks } from '../ingest/generate/stocks.js';
import { EXCHANGES, stockCsvSource, stockSpec, type Exchange } from '../ingest/stocks/stock-table.js';
import { openBenchDatabase } from './bench-database.js';
import { watchLoop } from './loop-watch.js';

export const STRATEGY = 'buy: MA(5) crosses above MA(20) and RSI(14) < 60 sell: RSI(14) > 70 kpi: sharpe';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function loopFigures(w: { loopP99: number; loopMax: number; healthP99: number; healthMax: number; polls: number }): string {
  return `event-loop delay p99 ${w.loopP99.toFixed(1)} ms (max ${w.loopMax.toFixed(0)} ms); /healthz p99 ${w.healthP99.toFixed(1)} ms (max ${w.healthMax.toFixed(0)} ms, ${w.polls} polls)`;
}

function describe(outcome: BacktestOutcome): string {
  if (outcome.answer.kind !== 'result') throw new Error(`ticker selection failed: ${JSON.stringify(outcome.answer)}`);
  const retrieve = outcome.answer.trace.find((s) => s.node === 'retrieve')?.ms ?? 0;
  const simulate = outcome.answer.trace.find((s) => s.node === 'simulate')?.ms ?? 0;
  return `${outcome.result!.candidates.length} tickers; fetch ${seconds(retrieve)}, engine ${seconds(simulate)}; ${outcome.answer.headline}`;
}

export async function loadStocksIfEmpty(pool: pg.Pool, tickers: number): Promise<void> {
  const { rows } = await pool.query('SELECT count(*) AS n FROM stock_listings');
  if (Number(rows[0].n) > 0) return;
  const dir = path.join(os.tmpdir(), 'datadesk-bench-stocks');
  const t = performance.now();
  const generated = await generateStocks({ tickers, from: '2020-01-02', to: '2025-09-30', seed: 1, outDir: dir });
  for (const exchange of Object.keys(EXCHANGES) as Exchange[]) {
    await ingestCsv({
      pool,
      file: generated.files[exchange],
      spec: stockSpec(exchange),
      source: stockCsvSource,
      rejectsPath: `${generated.files[exchange]}.rejects`,
    });
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`loaded ${tickers} tickers of synthetic bars in ${seconds(performance.now() - t)}`);
}

export async function backtestBench(config: Config, logger: Logger, tickers: number, legacy = false, traderOnly = false): Promise<void> {
  const db = await openBenchDatabase(config, logger, false);
  try {
    await loadStocksIfEmpty(db.pool, tickers);
    if (traderOnly) {
      await traderRuns(db.pool, logger);
      return;
    }

    // 1. the engine alone on 1,395 days (on this thread)
    const { spec } = parseRuleSyntax(`600519 ${STRATEGY}`);
    const client = await db.pool.connect();
    const bars = await (async () => {
      try {
        const [listing] = await resolveTickers(client, ['600519']);
        return await fetchBars(client, listing, ['OPEN', 'CLOSE'], undefined, undefined);
      } finally {
        client.release();
      }
    })();
    const times: number[] = [];
    let sharpe: number | null = null;
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      const result = runSpec(spec, [bars]);
      times.push(performance.now() - t);
      sharpe = result.candidates[0].kpis.sharpe_ratio;
    }
    console.log(
      `one backtest, ${bars.dates.length} days, 2 buy + 1 sell conditions, all 7 KPIs: median ${median(times).toFixed(2)} ms over 50 runs (Sharpe ${sharpe?.toFixed(4)})`,
    );
    const costedTimes: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      const result = runSpec({ ...spec, costs: 'china' }, [bars]);
      costedTimes.push(performance.now() - t);
      sharpe = result.candidates[0].kpis.sharpe_ratio;
    }
    console.log(`the same with costs: china: median ${median(costedTimes).toFixed(2)} ms over 50 runs (Sharpe ${sharpe?.toFixed(4)})`);

    // 2. ticker selection over the whole market
    const before = process.memoryUsage();
    console.log(`memory before the whole-market runs: RSS ${mib(before.rss)}, heap used ${mib(before.heapUsed)}`);
    if (legacy) await legacyRuns(db.pool);
    else await agentRuns(db.pool, logger);
    if (!legacy) await traderRuns(db.pool, logger);
    const after = process.memoryUsage();
    console.log(
      `memory after: RSS ${mib(after.rss)}, heap used ${mib(after.heapUsed)}` +
        (legacy ? '' : `; bar cache ${mib(barCacheStats().tables.reduce((s, t) => s + t.bytes, 0))} (shared, counted in RSS)`),
    );
  } finally {
    await destroyWorkerPool();
    await db.close();
  }
}

async function agentRuns(pool: pg.Pool, logger: Logger): Promise<void> {
  const deps = { pool, statementTimeoutMs: 120_000, logger };
  console.log(`ticker selection over all tickers through the agent (fetch included), engine on ${poolSize()} worker threads:`);
  const first = await watchLoop(() => runBacktest(`compare all ${STRATEGY}`, deps));
  const cache = barCacheStats();
  const loaded = cache.tables.length
    ? `; the cache loaded ${cache.tables.map((t) => `${t.exchange} ${t.rows.toLocaleString('en-US')} rows`).join(', ')}`
    : '';
  console.log(`  first run (cache empty): ${seconds(first.ms)} (${describe(first.value)}${loaded})`);
  console.log(`    ${loopFigures(first)}`);
  const runs: number[] = [];
  let last = first;
  const loop = { loopP99: 0, loopMax: 0, healthP99: 0, healthMax: 0, polls: 0 };
  for (let i = 0; i < 3; i++) {
    last = await watchLoop(() => runBacktest(`compare all ${STRATEGY}`, deps));
    runs.push(last.ms);
    loop.loopP99 = Math.max(loop.loopP99, last.loopP99);
    loop.loopMax = Math.max(loop.loopMax, last.loopMax);
    loop.healthP99 = Math.max(loop.healthP99, last.healthP99);
    loop.healthMax = Math.max(loop.healthMax, last.healthMax);
    loop.polls += last.polls;
  }
  console.log(
    `  next runs (from the cache): median ${seconds(median(runs))} over 3 runs (${runs.map(seconds).join(', ')}; last: ${describe(last.value)})`,
  );
  console.log(`    worst of the 3: ${loopFigures(loop)}`);

  // the same scan with the A-share execution model: its cost against the protocol's, both from the cache
  const costed: number[] = [];
  let costedLast = last;
  for (let i = 0; i < 3; i++) {
    costedLast = await watchLoop(() => runBacktest(`compare all ${STRATEGY} costs: china`, deps));
    costed.push(costedLast.ms);
  }
  const engine = (w: typeof last) => w.value.answer.trace.find((s) => s.node === 'simulate')?.ms ?? 0;
  console.log(
    `  with costs: china (commission, stamp duty, transfer fee, price limits): median ${seconds(median(costed))} over 3 runs ` +
      `(${costed.map(seconds).join(', ')}); ${(median(costed) / median(runs)).toFixed(2)}x the protocol's median; ` +
      `engine ${seconds(engine(costedLast))} against ${seconds(engine(last))} (last runs); ${describe(costedLast.value)}`,
  );
  console.log(`    ${loopFigures(costedLast)}`);

  // a grid of two parameters on one ticker: every cell on the worker threads, the heat map drawn on one too
  for (const grid of [GRID_SMALL, GRID_LARGE]) {
    const run = await watchLoop(() => runBacktest(grid.text, deps));
    const { answer, result } = run.value;
    if (answer.kind !== 'result') throw new Error(`the grid sweep failed: ${JSON.stringify(answer)}`);
    const cells = result!.candidates.length;
    console.log(
      `grid sweep (${grid.name}): ${cells.toLocaleString('en-US')} cells in ${seconds(run.ms)} through the agent, ` +
        `${(run.ms / cells).toFixed(2)} ms a cell; engine ${seconds(engine(run))}; ${answer.headline}`,
    );
    console.log(`    ${loopFigures(run)}`);
  }
}

/** Rounds of the trader runs: each round runs both of a pair, in alternating order. */
const TRADER_ROUNDS = 7;

/**
 * Issue 37's trader runs, each against the same run without its extras: a 20-ticker portfolio rebalanced monthly over
 * 2020-2025, with and without costs, stops and a volume cap; and the whole-market scan with costs and stops against
 * the plain scan. After one warm-up of each (it loads any new column into the cache), TRADER_ROUNDS rounds run both,
 * the plain one first in even rounds and last in odd ones, so that a busy spell on the shared machine falls on both
 * alike; the figures are the medians, their ratio, and the range of the rounds' own ratios.
 */
async function traderRuns(pool: pg.Pool, logger: Logger, rounds = TRADER_ROUNDS): Promise<void> {
  const deps = { pool, statementTimeoutMs: 120_000, logger };
  const { rows } = await pool.query(
    `SELECT stock_code FROM shanghai_stock_exchange WHERE trade_date = (SELECT min(trade_date) FROM shanghai_stock_exchange)
     ORDER BY stock_code LIMIT 20`,
  );
  const codes = rows.map((r) => r.stock_code as string).join(',');
  const once = async (text: string) => {
    const t = performance.now();
    const outcome = await runBacktest(text, deps);
    const ms = performance.now() - t;
    if (outcome.answer.kind !== 'result') throw new Error(`${text}: ${JSON.stringify(outcome.answer)}`);
    return { ms, outcome };
  };
  const pairs = [
    {
      name: `portfolio of 20 tickers, 2020..2025, rebalanced monthly`,
      plain: `portfolio ${codes} 2020..2025 rebalance: monthly`,
      extras: `portfolio ${codes} 2020..2025 rebalance: monthly costs: china stop: 8% trail: 15% volume-cap: 10%`,
    },
    {
      name: 'whole-market scan',
      plain: `compare all 2020..2025 ${STRATEGY}`,
      extras: `compare all 2020..2025 ${STRATEGY} costs: china stop: 8% trail: 15%`,
    },
  ];
  console.log(
    `trader runs (issue 37): each with costs: china, stops (8% stop-loss, 15% trailing) [and a 10% volume cap] against without, ` +
      `${rounds} alternating rounds after a warm-up:`,
  );
  for (const p of pairs) {
    await once(p.plain);
    await once(p.extras);
    const plain: number[] = [];
    const extras: number[] = [];
    let headline = '';
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['plain', 'extras'] as const) : (['extras', 'plain'] as const);
      for (const which of order) {
        const run = await once(p[which]);
        (which === 'plain' ? plain : extras).push(run.ms);
        if (which === 'extras' && run.outcome.answer.kind === 'result') headline = run.outcome.answer.headline;
      }
    }
    const ratio = median(extras) / median(plain);
    const ratios = extras.map((e, i) => e / plain[i]).sort((a, b) => a - b);
    console.log(
      `  ${p.name}: median ${seconds(median(extras))} with them, ${seconds(median(plain))} without: ${ratio.toFixed(2)}x ` +
        `(${ratio <= 1.5 ? 'within' : 'OVER'} the 1.5x budget; the rounds' ratios ${ratios[0].toFixed(2)}-${ratios.at(-1)!.toFixed(2)}, ` +
        `median ${median(ratios).toFixed(2)}); ${headline}`,
    );
  }
}

/** The sweeps the bench times: the issue's example, and the largest grid an answer runs (MAX_GRID_CELLS). */
const GRID_SMALL = {
  name: 'RSI(6..24 step 2) < 20..40 step 5, 2020..2025',
  text: '600519 buy: RSI(6..24 step 2) < 20..40 step 5 sell: RSI(6..24 step 2) > 70 kpi: sharpe',
};
const GRID_LARGE = {
  name: 'MA(2..41) crosses above MA(20..116 step 4), 40 x 25, with costs',
  text: '600519 buy: MA(2..41) crosses above MA(20..116 step 4) sell: RSI(14) > 70 kpi: sharpe costs: china',
};

/** Before issue 14: every scan fetches the market with COPY, and the engine runs on the event loop. */
async function legacyRuns(pool: pg.Pool): Promise<void> {
  const { spec } = parseRuleSyntax(`compare all ${STRATEGY}`);
  console.log('ticker selection over all tickers, the legacy way (COPY per scan, engine on the event loop):');
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const w = await watchLoop(async () => {
      const client = await pool.connect();
      try {
        const t = performance.now();
        const listings = await resolveTickers(client, spec.tickers);
        const data = await fetchManyBars(client, listings, ['OPEN', 'CLOSE'], spec.start, spec.end, true);
        const fetched = performance.now() - t;
        // yields once so that the pending /healthz poll sees the engine's stall, as a request arriving then would
        await new Promise((r) => setImmediate(r));
        const e = performance.now();
        const result = runSpec(spec, data);
        return { fetched, engine: performance.now() - e, best: result.candidates[result.ranking[0]].label, n: result.candidates.length };
      } finally {
        client.release();
      }
    });
    runs.push(w.ms);
    console.log(
      `  run ${i + 1}: ${seconds(w.ms)} (${w.value.n} tickers; fetch ${seconds(w.value.fetched)}, engine ${seconds(w.value.engine)}; best ${w.value.best}); ${loopFigures(w)}`,
    );
  }
  console.log(`  median ${seconds(median(runs))} over 3 runs`);
}
