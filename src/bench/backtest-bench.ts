// npm run bench -- backtest: one 1,395-day backtest with all seven KPIs (the
// engine alone, median of many runs), then ticker selection over every ticker
// of the benchmark database through the whole agent, fetch included. Loads
// 5,401 synthetic tickers (BacktestBench's size) into datadesk_bench first if
// it has none.
import { median } from './stats.js';
import os from 'node:os';
import path from 'node:path';
import { rmSync } from 'node:fs';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { runBacktest } from '../agents/backtest/agent.js';
import { fetchBars, resolveTickers } from '../agents/backtest/retrieval.js';
import { runSpec } from '../backtest/run-spec.js';
import { parseRuleSyntax } from '../backtest/rule-syntax.js';
import { ingestCsv } from '../ingest/csv-ingest.js';
import { generateStocks } from '../ingest/generate/stocks.js';
import { EXCHANGES, stockCsvSource, stockSpec, type Exchange } from '../ingest/stocks/stock-table.js';
import { openBenchDatabase } from './bench-database.js';

const STRATEGY = 'buy: MA(5) crosses above MA(20) and RSI(14) < 60 sell: RSI(14) > 70 kpi: sharpe';

export async function backtestBench(config: Config, logger: Logger, tickers: number): Promise<void> {
  const db = await openBenchDatabase(config, logger, false);
  try {
    const { rows } = await db.pool.query('SELECT count(*) AS n FROM stock_listings');
    if (rows[0].n === 0) {
      const dir = path.join(os.tmpdir(), 'datadesk-bench-stocks');
      const t = performance.now();
      const generated = await generateStocks({ tickers, from: '2020-01-02', to: '2025-09-30', seed: 1, outDir: dir });
      for (const exchange of Object.keys(EXCHANGES) as Exchange[]) {
        await ingestCsv({ pool: db.pool, file: generated.files[exchange], spec: stockSpec(exchange), source: stockCsvSource, rejectsPath: `${generated.files[exchange]}.rejects` });
      }
      rmSync(dir, { recursive: true, force: true });
      console.log(`loaded ${tickers} tickers of synthetic bars in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }

    // 1. the engine alone on 1,395 days
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
    console.log(`one backtest, ${bars.dates.length} days, 2 buy + 1 sell conditions, all 7 KPIs: median ${median(times).toFixed(2)} ms over 50 runs (Sharpe ${sharpe?.toFixed(4)})`);

    // 2. ticker selection over the whole market through the agent, fetch included
    const deps = { pool: db.pool, statementTimeoutMs: 120_000, logger };
    const runs: number[] = [];
    let summary = '';
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const outcome = await runBacktest(`compare all ${STRATEGY}`, deps);
      runs.push(performance.now() - t);
      if (outcome.answer.kind !== 'result') throw new Error(`ticker selection failed: ${JSON.stringify(outcome.answer)}`);
      const retrieve = outcome.answer.trace.find((s) => s.node === 'retrieve')?.ms ?? 0;
      const simulate = outcome.answer.trace.find((s) => s.node === 'simulate')?.ms ?? 0;
      summary = `${outcome.result!.candidates.length} tickers; fetch ${(retrieve / 1000).toFixed(2)} s, engine ${(simulate / 1000).toFixed(2)} s; best: ${outcome.answer.headline}`;
    }
    console.log(`ticker selection over all tickers (agent, fetch included): median ${(median(runs) / 1000).toFixed(2)} s over 3 runs (${summary})`);
    const mem = process.memoryUsage();
    console.log(`memory: RSS ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    await db.close();
  }
}
