// What `datadesk backtest simulate|factor|run` do (their options: backtest.ts).
// Loaded when one of them runs, so `datadesk --help` and the other commands
// do not load the engine, the agent or the database driver.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { answerBacktest } from '../../agents/backtest/agent.js';
import { readBarFile, readSignalFile } from '../../backtest/bar-files.js';
import { compileExpression } from '../../backtest/expr/compile.js';
import { ExpressionError } from '../../backtest/expr/parser.js';
import { computeKpis } from '../../backtest/kpis.js';
import { simulate } from '../../backtest/simulator.js';
import { simulateWithCosts } from '../../backtest/simulate-costs.js';
import { chinaModel, type ExecutionModelName } from '../../backtest/execution-model.js';
import { dayOfIso } from '../../backtest/days.js';
import { BacktestRuns } from '../../backtest/run-id.js';
import { destroyWorkerPool } from '../../backtest/threads/pool.js';
import { renderAnswerText } from '../../channels/cli/render-text.js';
import { UserError } from '../../core/errors.js';
import { llmFromConfig } from '../../llm/from-config.js';
import { commandContext, withDatabase } from '../context.js';
import { answerExitCode, writeOut } from '../output.js';
import { chartPng } from '../chart-png.js';

export interface SimulateOptions {
  bars: string;
  signals: string;
  capital: number;
  sizing: 'lots' | 'shares';
  costs: ExecutionModelName;
  slippage?: number;
  code: string;
  name: string;
}

export async function runSimulate(opts: SimulateOptions): Promise<void> {
  const { dates, bars } = await readBarFile(opts.bars);
  const { buy, sell } = await readSignalFile(opts.signals, dates);
  const input = { dates, open: bars.OPEN, close: bars.CLOSE, buy, sell, capital: opts.capital, sizing: opts.sizing };
  const model = chinaModel();
  const result =
    opts.costs === 'china'
      ? simulateWithCosts({
          ...input,
          model,
          days: Int32Array.from(dates, dayOfIso),
          code: opts.code,
          name: opts.name,
          slippageBps: opts.slippage ?? model.defaultSlippageBps,
        })
      : simulate(input);
  const trades = result.trades.map(({ buy_date, buy_price, sell_date, sell_price, shares, pnl }) => ({
    buy_date,
    buy_price,
    sell_date,
    sell_price,
    shares,
    pnl,
  }));
  await writeOut(
    JSON.stringify({
      kpis: computeKpis(result),
      trades,
      equity: result.equity,
      ...(result.execution ? { execution: result.execution } : {}),
    }) + '\n',
  );
}

export async function runFactor(opts: { bars: string; expr: string }): Promise<void> {
  let compiled;
  try {
    compiled = compileExpression(opts.expr);
  } catch (error) {
    if (error instanceof ExpressionError) throw new UserError(error.message);
    throw error;
  }
  const { dates, bars } = await readBarFile(opts.bars);
  const values = Array.from(compiled.evaluate(bars, dates.length), (v) => (Number.isFinite(v) ? v : null));
  await writeOut(JSON.stringify({ values }) + '\n');
}

/** `backtest run`'s options */
export interface RunOptions {
  json?: boolean;
  chart: string;
  costs?: ExecutionModelName;
  id?: string;
  workspace?: string;
}

export async function runBacktest(words: string[], opts: RunOptions): Promise<void> {
  const ctx = commandContext();
  if (opts.id && (words.length || opts.costs))
    throw new UserError('--id repeats a kept run as it was: give it alone, without a request or --costs');
  if (!opts.id && !words.length) {
    throw new UserError('say what to backtest (e.g. 600519 2022 buy: RSI(14) < 30 sell: RSI(14) > 70), or --id RUN to repeat a kept run');
  }
  if (opts.id) words = ['rerun', opts.id];
  // the option is the request's own words: it goes through the same reading (and its errors)
  if (opts.costs && !/\bcosts:/i.test(words.join(' '))) words = [...words, `costs: ${opts.costs}`];
  const answer = await withDatabase(
    ctx,
    (db) =>
      answerBacktest(words.join(' '), {
        pool: db.read,
        statementTimeoutMs: ctx.config.statementTimeoutMs,
        logger: ctx.logger,
        llm: llmFromConfig(ctx.config),
        runs: new BacktestRuns(db.write),
        workspace: opts.workspace,
      }),
    // the backtest agent reads bars with the app's own SQL: no model-written SQL, so no reader login to set up
    { demoData: true, reader: false },
  ).finally(
    // a scan's threads are stopped once none is loading (pool.ts): the process' exit would terminate a thread
    // that started late and is still loading, which can abort Node
    destroyWorkerPool,
  );
  let chartPath: string | undefined;
  if (answer.kind === 'result' && answer.chart) {
    chartPath = path.resolve(opts.chart || path.join(ctx.config.home, 'charts', `backtest-${Date.now()}.png`));
    mkdirSync(path.dirname(chartPath), { recursive: true });
    writeFileSync(chartPath, await chartPng(answer.chart, ctx.config.quickchartUrl));
  }
  await writeOut(
    opts.json ? JSON.stringify({ ...answer, chart_png: chartPath ?? null }, null, 2) + '\n' : renderAnswerText(answer, chartPath) + '\n',
  );
  process.exitCode = answerExitCode(answer);
}
