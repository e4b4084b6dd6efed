// runSpec off the event loop: the candidates are split across the worker
// threads and their results put back together in listing order, so the
// ranking, the KPIs and every simulation are exactly runSpec's.
//
// A whole-market scan (bars from the shared cache) sends no bars at all: the
// threads read the shared columns. It brings back only each candidate's seven
// KPIs and trade count; the full runs (equity, trades) of the candidates an
// answer shows are then computed on the threads too, and any other candidate's
// run is made on first read (on this thread, one ticker: about a millisecond).
//
// Small work runs on this thread, with the same code (threads/tasks.ts): one
// ticker's run and what is set beside it take a few milliseconds, and a cold
// process would wait a second or more for its first thread to start and load
// the engine. The pool starts only for work worth it.
import { KPI_NAMES, type Kpis } from './kpis.js';
import { rankIndices } from './ranking.js';
import { sharedLocation, type MarketTable } from './bar-cache.js';
import {
  candidateRules,
  planCandidates,
  simulateCandidate,
  type Candidate,
  type CandidatePlan,
  type SpecResult,
  type TickerBars,
} from './run-spec.js';
import type { SimulationResult } from './simulator.js';
import type { StrategySpec } from './spec.js';
import type { Field } from './expr/parser.js';
import type { MarketIndex } from './benchmark.js';
import type { Comparisons } from './comparisons.js';
import { poolSize, runTask } from './threads/pool.js';
import {
  compareJobs,
  evaluateJobs,
  JOB_STRIDE,
  portfolioJob,
  SWEEP_STRIDE,
  type EvaluateInput,
  type EvaluateOutput,
  type InlineTicker,
  type PortfolioInput,
  type SharedTableRef,
} from './threads/tasks.js';
import { portfolioMembers, portfolioRun, type PortfolioRun } from './run-portfolio.js';

/** Candidates whose full runs come back with the KPIs: what an answer's table shows (kpiTable's 50 rows). */
export const FULL_RUNS = 50;

/**
 * Bars simulated below which the work stays on the calling thread: 10,000 bars (seven tickers of 2020-2025) are
 * a few milliseconds of the event loop, with costs and exits (test/backtest/threads.test.ts times them).
 */
export const INLINE_BARS = 10_000;

/** Jobs per task: enough tasks to keep every thread busy to the end, few enough to cost nothing. */
function chunkSize(jobs: number): number {
  return Math.max(1, Math.ceil(jobs / (poolSize() * 4)));
}

interface Source {
  tables?: SharedTableRef[];
  tickers?: TickerBars[];
  /** every ticker of the run, whatever the source */
  all: TickerBars[];
  /** per ticker: source index, from, to */
  where: (ticker: number) => [number, number, number];
}

function sourceOf(tickers: TickerBars[]): Source {
  const locations = tickers.map(sharedLocation);
  if (tickers.length && locations.every((l) => l !== undefined)) {
    const tableIndex = new Map<MarketTable, number>();
    const tables: SharedTableRef[] = [];
    const fields = Object.keys(tickers[0].bars) as Field[];
    for (const l of locations) {
      if (tableIndex.has(l!.table)) continue;
      tableIndex.set(l!.table, tables.length);
      const columns: SharedTableRef['columns'] = {};
      for (const f of fields) columns[f] = l!.table.columns.get(f);
      tables.push({ days: l!.table.days, columns });
    }
    return { tables, all: tickers, where: (i) => [tableIndex.get(locations[i]!.table)!, locations[i]!.from, locations[i]!.to] };
  }
  // bars fetched for this run: each task gets a copy of its own tickers' bars
  return { tickers, all: tickers, where: (i) => [i, 0, 0] };
}

/** The name the price-limit rules read (ST is marked in the short name). */
const ruleName = (t: TickerBars) => t.shortName ?? t.name;

/** The bars the plans simulate, counted up to `limit`. */
function barsOfPlans(source: Source, plans: readonly CandidatePlan[], limit: number): number {
  let bars = 0;
  for (let i = 0; i < plans.length && bars <= limit; i++) bars += source.all[plans[i].ticker].dates.length;
  return bars;
}

async function evaluatePlans(spec: StrategySpec, source: Source, plans: CandidatePlan[], full: boolean): Promise<EvaluateOutput[]> {
  // one candidate, or a few short ones: on this thread, as one task
  const inline = plans.length === 1 || barsOfPlans(source, plans, INLINE_BARS) <= INLINE_BARS;
  const size = inline ? plans.length : chunkSize(plans.length);
  const tasks: Promise<EvaluateOutput>[] = [];
  for (let at = 0; at < plans.length; at += size) {
    const chunk = plans.slice(at, at + size);
    const jobs = new Int32Array(chunk.length * JOB_STRIDE);
    const params = new Float64Array(chunk.length * SWEEP_STRIDE).fill(NaN);
    const used = new Map<number, number>();
    const tickers: InlineTicker[] = [];
    // an execution model with costs needs each run's dates and ticker (rates in force, board, price limits)
    const costs = spec.costs !== 'none';
    const tickerOfJob =
      costs && source.tables ? chunk.map((p) => ({ code: source.all[p.ticker].code, name: ruleName(source.all[p.ticker]) })) : undefined;
    chunk.forEach((p, i) => {
      let [src, from, to] = source.where(p.ticker);
      if (source.tickers) {
        // each task carries only its own tickers
        if (!used.has(src)) {
          used.set(src, tickers.length);
          const t = source.tickers[src];
          tickers.push({
            bars: t.bars,
            length: t.dates.length,
            ...(full || costs ? { dates: t.dates, code: t.code, name: ruleName(t) } : {}),
          });
        }
        src = used.get(src)!;
      }
      jobs.set([src, from, to, p.strategy], i * JOB_STRIDE);
      if (p.values) params.set(p.values, i * SWEEP_STRIDE);
    });
    const input: EvaluateInput = { spec, jobs, params, full, ...(source.tables ? { tables: source.tables, tickerOfJob } : { tickers }) };
    tasks.push(inline ? Promise.resolve(evaluateJobs(input)) : runTask('evaluate', input));
  }
  return Promise.all(tasks);
}

function kpisAt(out: EvaluateOutput, i: number): Kpis {
  const k = {} as Kpis;
  KPI_NAMES.forEach((name, j) => {
    const v = out.kpis[i * KPI_NAMES.length + j];
    k[name] = Number.isNaN(v) ? null : v;
  });
  return k;
}

/** runSpec's result, computed on the worker threads. */
export async function runSpecThreaded(spec: StrategySpec, tickers: TickerBars[]): Promise<SpecResult> {
  const plans = planCandidates(spec, tickers);
  const source = sourceOf(tickers);
  const full = plans.length <= FULL_RUNS;
  const outputs = await evaluatePlans(spec, source, plans, full);

  const rules = new Map<string, ReturnType<typeof candidateRules>>();
  const candidates: Candidate[] = [];
  let i = 0;
  for (const out of outputs) {
    for (let j = 0; j < out.trades.length; j++, i++) {
      const plan = plans[i];
      const strategy = spec.strategies[plan.strategy];
      const ruleKey = `${plan.strategy}/${plan.values?.join(',')}`;
      if (!rules.has(ruleKey)) rules.set(ruleKey, candidateRules(spec, strategy, plan.values));
      const r = rules.get(ruleKey)!;
      const c = {
        label: plan.label,
        ticker: tickers[plan.ticker],
        strategy,
        values: plan.values,
        kpis: kpisAt(out, j),
        roundTrips: out.trades[j],
        buyRules: r.buyRules,
        sellRules: r.sellRules,
      } as Candidate;
      if (out.simulations) c.simulation = out.simulations[j];
      else lazySimulation(c, spec);
      candidates.push(c);
    }
  }
  const ranking = rankIndices(
    candidates.map((c) => c.kpis[spec.kpi]),
    spec.kpi,
  );
  if (!full) {
    // the runs an answer shows, off the event loop as well
    const shown = ranking.slice(0, FULL_RUNS);
    const runs = await evaluatePlans(
      spec,
      source,
      shown.map((k) => plans[k]),
      true,
    );
    const simulations = runs.flatMap((r) => r.simulations!);
    shown.forEach((k, j) => (candidates[k].simulation = simulations[j]));
  }
  return { candidates, kpi: spec.kpi, ranking };
}

/** `simulation` computed on first read, then kept; assigning it sets it. */
function lazySimulation(c: Candidate, spec: StrategySpec): void {
  let value: SimulationResult | undefined;
  Object.defineProperty(c, 'simulation', {
    enumerable: true,
    configurable: true,
    get: () => (value ??= simulateCandidate(spec, c.ticker, c.strategy, c.values)),
    set: (v: SimulationResult) => (value = v),
  });
}

/**
 * What the answer sets beside its winner (comparisons.ts), on a worker thread: its buy and hold, the run without
 * costs, the market and the walk-forward check. The winner's bars are sent as a plain ticker (a cached one's
 * columns stay views of the shared memory).
 */
export async function compareThreaded(
  spec: StrategySpec,
  tickers: TickerBars[],
  winner: Candidate,
  market: MarketIndex | undefined,
): Promise<Comparisons> {
  const t = winner.ticker;
  const plans = spec.walkForward !== undefined ? planCandidates(spec, tickers) : undefined;
  // the winner's buy and hold, its run without costs and with the market, and a walk-forward's in-sample runs
  const bars = t.dates.length * (3 + (plans?.length ?? 0));
  if (bars <= INLINE_BARS) {
    return compareJobs({
      spec,
      ticker: t,
      strategy: spec.strategies.indexOf(winner.strategy),
      ...(winner.values ? { values: winner.values } : {}),
      ...(market ? { market } : {}),
      ...(plans ? { plans } : {}),
    });
  }
  const ticker: TickerBars = {
    code: t.code,
    name: t.name,
    ...(t.shortName ? { shortName: t.shortName } : {}),
    dates: t.dates,
    bars: t.bars,
  };
  return runTask('compare', {
    spec,
    ticker,
    strategy: spec.strategies.indexOf(winner.strategy),
    ...(winner.values ? { values: winner.values } : {}),
    ...(market ? { market } : {}),
    ...(plans ? { plans } : {}),
  });
}

/**
 * A portfolio spec's run (run-portfolio.ts) with the market beside it: its members chosen here, the run on a worker
 * thread unless its members' bars are few (then here, with the same code).
 */
export async function runPortfolioThreaded(
  spec: StrategySpec,
  tickers: TickerBars[],
  market: MarketIndex | undefined,
): Promise<PortfolioRun> {
  const chosen = portfolioMembers(spec, tickers);
  if (!chosen.members.length) throw new Error('runPortfolio: no member has a bar on the first day');
  const bars = chosen.members.reduce((n, t) => n + t.dates.length, 0);
  const input: PortfolioInput = { spec, members: chosen.members, ...(market ? { market } : {}) };
  if (bars <= INLINE_BARS) return portfolioRun(spec, chosen, portfolioJob(input));
  // the members as plain tickers: a cached one's columns stay views of the shared memory
  const members = chosen.members.map((t) => ({
    code: t.code,
    name: t.name,
    ...(t.shortName ? { shortName: t.shortName } : {}),
    dates: t.dates,
    bars: t.bars,
  }));
  return portfolioRun(spec, chosen, await runTask('portfolio', { ...input, members }));
}
