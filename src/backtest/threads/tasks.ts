// The backtest tasks' bodies: what a worker thread runs (worker.ts loads this
// module on its first backtest task) and what run-threaded.ts runs on the
// calling thread when the work is small (one ticker's run, its comparisons).
// The same code either way, so the same doubles. A user error is thrown; the
// worker turns it into a message that crosses the thread boundary.
import type { Bars } from '../expr/compile.js';
import type { Field } from '../expr/parser.js';
import { computeKpis, KPI_NAMES, type Kpis } from '../kpis.js';
import { simulateCandidate, type EngineBars, type TickerBars } from '../run-spec.js';
import type { SimulationResult } from '../simulator.js';
import type { StrategySpec } from '../spec.js';
import { dayText } from '../days.js';
import { compareWinner, type ComparisonInput, type Comparisons } from '../comparisons.js';
import { versusMarket, type MarketIndex, type VersusMarket } from '../benchmark.js';
import { simulatePortfolioSpec } from '../run-portfolio.js';
import { tearsheet, type Tearsheet } from '../tearsheet.js';
import type { PortfolioResult } from '../portfolio.js';

/** A cached exchange table as a worker reads it: views of the shared memory. */
export interface SharedTableRef {
  days: Int32Array;
  columns: Partial<Record<Field, Float64Array>>;
}

export interface InlineTicker {
  bars: Bars;
  length: number;
  dates?: string[];
  /** with an execution model that has costs: the ticker (its board, its price limits; the ST rule reads `name`, the short name) */
  code?: string;
  name?: string;
}

/** Job rows: source (ticker or table index), from, to (rows of a table), strategy index. */
export const JOB_STRIDE = 4;
/** Sweep values a job: a grid has two axes. */
export const SWEEP_STRIDE = 2;

export interface EvaluateInput {
  spec: StrategySpec;
  /** whole-market source: the tables the jobs' rows point into */
  tables?: SharedTableRef[];
  /** small source: the tickers' bars, cloned (their dates only for full runs) */
  tickers?: InlineTicker[];
  jobs: Int32Array;
  /** the sweep values of each job, SWEEP_STRIDE a job, NaN for none */
  params: Float64Array;
  /** also return each job's simulation (equity and trades) */
  full: boolean;
  /** whole-market source with costs: each job's ticker (its board and price limits) */
  tickerOfJob?: { code: string; name: string }[];
}

export interface EvaluateOutput {
  /** KPI_NAMES.length values per job, NaN where the KPI is null (a KPI is never NaN) */
  kpis: Float64Array;
  /** round trips of each job */
  trades: Int32Array;
  simulations?: SimulationResult[];
}

// The KPIs never read a trade's dates: without full runs, the engine gets
// blank labels of the right length instead of making 1,400 strings a ticker.
const blanks = new Map<number, string[]>();
function blankDates(n: number): string[] {
  let b = blanks.get(n);
  if (!b) {
    b = new Array<string>(n).fill('');
    if (blanks.size > 64) blanks.clear();
    blanks.set(n, b);
  }
  return b;
}

function barsOf(input: EvaluateInput, job: number): EngineBars {
  const j = job * JOB_STRIDE;
  const source = input.jobs[j];
  if (!input.tables) {
    const t = input.tickers![source];
    return { bars: t.bars, dates: t.dates ?? blankDates(t.length), code: t.code, name: t.name };
  }
  const table = input.tables[source];
  const from = input.jobs[j + 1];
  const to = input.jobs[j + 2];
  const bars = {} as Bars;
  for (const [f, col] of Object.entries(table.columns) as [Field, Float64Array][]) bars[f] = col.subarray(from, to);
  const dates = input.full ? Array.from(table.days.subarray(from, to), dayText) : blankDates(to - from);
  // an execution model with costs reads the days (the rates in force) and the ticker (its price limits)
  const ticker = input.tickerOfJob?.[job];
  return ticker ? { bars, dates, days: table.days.subarray(from, to), code: ticker.code, name: ticker.name } : { bars, dates };
}

/** The candidates' runs and KPIs, exactly as runSpec computes them. */
export function evaluateJobs(input: EvaluateInput): EvaluateOutput {
  const count = input.jobs.length / JOB_STRIDE;
  const kpis = new Float64Array(count * KPI_NAMES.length);
  const trades = new Int32Array(count);
  const simulations: SimulationResult[] = [];
  for (let job = 0; job < count; job++) {
    const values = Array.from(input.params.subarray(job * SWEEP_STRIDE, (job + 1) * SWEEP_STRIDE)).filter((v) => !Number.isNaN(v));
    const strategy = input.spec.strategies[input.jobs[job * JOB_STRIDE + 3]];
    const simulation = simulateCandidate(input.spec, barsOf(input, job), strategy, values.length ? values : undefined);
    const k = computeKpis(simulation);
    KPI_NAMES.forEach((name, i) => (kpis[job * KPI_NAMES.length + i] = k[name] ?? NaN));
    trades[job] = simulation.trades.length;
    if (input.full) simulations.push(simulation);
  }
  return { kpis, trades, ...(input.full ? { simulations } : {}) };
}

/** What an answer sets beside its winner (comparisons.ts). */
export function compareJobs(input: ComparisonInput): Comparisons {
  return compareWinner(input);
}

export interface PortfolioInput {
  spec: StrategySpec;
  /** the members chosen (run-portfolio.ts portfolioMembers), in order */
  members: TickerBars[];
  market?: MarketIndex;
}

export interface PortfolioOutput {
  portfolio: PortfolioResult;
  kpis: Kpis;
  /** the portfolio against the market over its days (benchmark.ts), when there is a market */
  market?: VersusMarket & { members: number };
  /** its tearsheet (tearsheet.ts), the Monte Carlo of its trades included */
  tearsheet: Tearsheet;
}

/** One portfolio run, its KPIs, the market beside it and its tearsheet. */
export function portfolioJob(input: PortfolioInput): PortfolioOutput {
  const portfolio = simulatePortfolioSpec(input.spec, input.members);
  const kpis = computeKpis(portfolio);
  const m = input.market;
  return {
    portfolio,
    kpis,
    tearsheet: tearsheet({
      dates: portfolio.dates,
      equity: portfolio.equity,
      trades: portfolio.trades,
      exposure: portfolio.exposure,
      traded: portfolio.traded,
    }),
    ...(m && m.members > 0 ? { market: { ...versusMarket(portfolio.equity, portfolio.dates, m), members: m.members } } : {}),
  };
}
