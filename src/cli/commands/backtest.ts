// datadesk backtest simulate|factor|run: the exact engine from files, and the
// whole backtest agent against the database. Only the commands' definitions
// live here: what they do (backtest-run.ts) loads when one runs.
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { ExecutionModelName } from '../../backtest/execution-model.js';
import { exitCodesHelp } from '../output.js';
import type { RunOptions, SimulateOptions } from './backtest-run.js';

const positiveNumber = (v: string) => {
  const n = Number(v.replace(/[,_]/g, ''));
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a positive amount, got "${v}"`);
  return n;
};
const sizing = (v: string) => {
  if (v !== 'lots' && v !== 'shares') throw new InvalidArgumentError('expected lots or shares');
  return v;
};
/**
 * The execution models by name, as backtest/execution-model.ts's EXECUTION_MODELS: that module loads the models'
 * schema library (95 files, a tenth of a second of every `datadesk` start), so the names are here too and
 * test/cli/backtest-cli.test.ts holds the two lists equal.
 */
const COST_MODELS: readonly ExecutionModelName[] = ['none', 'china'];
const costModel = (v: string): ExecutionModelName => {
  if (!(COST_MODELS as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected ${COST_MODELS.join(' or ')}`);
  return v as ExecutionModelName;
};
const basisPoints = (v: string) => {
  const n = Number(v.replace(/\s*bps?$/i, ''));
  if (!Number.isFinite(n) || n < 0 || n > 1_000) throw new InvalidArgumentError(`expected basis points from 0 to 1000, got "${v}"`);
  return n;
};

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
    .action(async (opts: SimulateOptions) => (await import('./backtest-run.js')).runSimulate(opts));

  backtest
    .command('factor')
    .description('evaluate a factor short code over bars; prints {"values": [...]} (null where undefined)')
    .requiredOption('--bars <file>', 'CSV date,open,high,low,close,volume[,amount]')
    .requiredOption('--expr <code>', 'e.g. "(DELAY(CLOSE,1)-SMA(DELAY(CLOSE,1),5))/SMA(DELAY(CLOSE,1),5)*100"')
    .action(async (opts: { bars: string; expr: string }) => (await import('./backtest-run.js')).runFactor(opts));

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
    .action(async (words: string[], opts: RunOptions) => (await import('./backtest-run.js')).runBacktest(words, opts));
}
