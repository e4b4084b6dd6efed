// datadesk backtest simulate|factor|run: the exact engine from files, and the
// whole backtest agent against the database.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { answerBacktest } from '../../agents/backtest/agent.js';
import { readBarFile, readSignalFile } from '../../backtest/bar-files.js';
import { compileExpression } from '../../backtest/expr/compile.js';
import { ExpressionError } from '../../backtest/expr/parser.js';
import { computeKpis } from '../../backtest/kpis.js';
import { simulate } from '../../backtest/simulator.js';
import { simulateWithCosts } from '../../backtest/simulate-costs.js';
import { chinaModel, EXECUTION_MODELS, type ExecutionModelName } from '../../backtest/execution-model.js';
import { dayOfIso } from '../../backtest/days.js';
import { BacktestRuns } from '../../backtest/run-id.js';
import { renderAnswerText } from '../../channels/cli/render-text.js';
import { renderChart } from '../../charts/render.js';
import { UserError } from '../../core/errors.js';
import { llmFromConfig } from '../../llm/from-config.js';
import { commandContext, withDatabase } from '../context.js';
import { answerExitCode, exitCodesHelp, writeOut } from '../output.js';

const positiveNumber = (v: string) => {
  const n = Number(v.replace(/[,_]/g, ''));
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a positive amount, got "${v}"`);
  return n;
};
const sizing = (v: string) => {
  if (v !== 'lots' && v !== 'shares') throw new InvalidArgumentError('expected lots or shares');
  return v;
};
const costModel = (v: string): ExecutionModelName => {
  if (!(EXECUTION_MODELS as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected ${EXECUTION_MODELS.join(' or ')}`);
  return v as ExecutionModelName;
};
const basisPoints = (v: string) => {
  const n = Number(v.replace(/\s*bps?$/i, ''));
  if (!Number.isFinite(n) || n < 0 || n > 1_000) throw new InvalidArgumentError(`expected basis points from 0 to 1000, got "${v}"`);
  return n;
};

/** `backtest run`'s options */
type RunOptions = { json?: boolean; chart: string; costs?: ExecutionModelName; id?: string; workspace?: string };

export function registerBacktest(program: Command): void {
  const backtest = program
    .command('backtest')
    .description("exact backtests (BacktestBench's protocol; the engine's choices: docs/backtest-engine.md)");

  backtest
    .command('simulate')
    .description('run buy/sell signals over bars; prints KPIs, trades and equity as JSON')
    .requiredOption('--bars <file>', 'CSV date,open,high,low,close,volume')
    .requiredOption('--signals <file>', 'CSV date,buy,sell (0/1 or true/false: act on this day)')
    .option('--capital <n>', 'initial capital', positiveNumber, 1_000_000)
    .option('--sizing <mode>', 'lots (whole lots of 100) or shares', sizing, 'lots')
    .option(
      '--costs <model>',
      'none (the protocol: zero costs, every order fills) or china (A-share costs and price limits)',
      costModel,
      'none',
    )
    .option('--slippage <bps>', "with --costs china: slippage in basis points (default: the fixture's)", basisPoints)
    .option('--code <code>', "with --costs china: the ticker, for its board's price limits (default: a main-board stock)", '600000')
    .option('--name <name>', 'with --costs china: its name (an ST or *ST name has the 5% limit)', '')
    .action(
      async (opts: {
        bars: string;
        signals: string;
        capital: number;
        sizing: 'lots' | 'shares';
        costs: ExecutionModelName;
        slippage?: number;
        code: string;
        name: string;
      }) => {
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
      },
    );

  backtest
    .command('factor')
    .description('evaluate a factor short code over bars; prints {"values": [...]} (null where undefined)')
    .requiredOption('--bars <file>', 'CSV date,open,high,low,close,volume[,amount]')
    .requiredOption('--expr <code>', 'e.g. "(DELAY(CLOSE,1)-SMA(DELAY(CLOSE,1),5))/SMA(DELAY(CLOSE,1),5)*100"')
    .action(async (opts: { bars: string; expr: string }) => {
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
    });

  backtest
    .command('run')
    .description('the backtest agent: rule syntax (or words, with an LLM) against the database')
    .argument('[request...]', 'e.g. 600519 2022 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: sharpe')
    .option('--json', 'print the Answer as JSON')
    .option('--chart <file>', 'where to save the equity chart PNG', '')
    .option(
      '--costs <model>',
      'none (the protocol) or china (A-share costs and price limits); the same as "costs: china" in the request',
      costModel,
    )
    .option('--id <run>', 'repeat a kept run by the id printed under its answer (the request is then left out)')
    .option(
      '--workspace <id>',
      "whose run --id names: a Slack team id, a Teams tenant id or web:playground (run ids are per workspace; without it, the terminal's own)",
    )
    .addHelpText('after', exitCodesHelp({ clarify: false }))
    .action(async (words: string[], opts: RunOptions) => {
      const ctx = commandContext();
      if (opts.id && (words.length || opts.costs))
        throw new UserError('--id repeats a kept run as it was: give it alone, without a request or --costs');
      if (!opts.id && !words.length) {
        throw new UserError(
          'say what to backtest (e.g. 600519 2022 buy: RSI(14) < 30 sell: RSI(14) > 70), or --id RUN to repeat a kept run',
        );
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
        { demoData: true },
      );
      let chartPath: string | undefined;
      if (answer.kind === 'result' && answer.chart) {
        chartPath = path.resolve(opts.chart || path.join(ctx.config.home, 'charts', `backtest-${Date.now()}.png`));
        mkdirSync(path.dirname(chartPath), { recursive: true });
        writeFileSync(chartPath, await renderChart(answer.chart, ctx.config.quickchartUrl));
      }
      await writeOut(
        opts.json
          ? JSON.stringify({ ...answer, chart_png: chartPath ?? null }, null, 2) + '\n'
          : renderAnswerText(answer, chartPath) + '\n',
      );
      process.exitCode = answerExitCode(answer);
    });
}
