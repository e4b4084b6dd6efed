// Runs a strategy spec over bars already fetched: every candidate of the task
// family (one run, each ticker, each parameter value, each strategy), their
// KPIs, and the best by the protocol's direction and tie rules. No I/O.
import { shownValue } from '../core/inert-text.js';
import { compileExpression, type Bars, type Memo } from './expr/compile.js';
import { computeKpis, type Kpis, type KpiName } from './kpis.js';
import { rankIndices } from './ranking.js';
import { simulate, type SimulationResult } from './simulator.js';
import { simulateWithCosts } from './simulate-costs.js';
import { simulateWithRules, type PositionSize } from './day-rules.js';
import { chinaModel } from './execution-model.js';
import { dayOfIso } from './days.js';
import { axisName, settingOf, sideCodes, sideLabels, sweepAxes, type Strategy, type StrategySpec } from './spec.js';

export interface TickerBars {
  code: string;
  name: string;
  /** the exchange's short name, where ST and *ST are marked (the price-limit rules read it; else `name`) */
  shortName?: string;
  dates: string[];
  bars: Bars;
}

export interface Candidate {
  /** what the candidate is, as the user would name it: a ticker, "n = 14", "strategy B" */
  label: string;
  ticker: TickerBars;
  strategy: Strategy;
  /** a sweep's candidate: its value on each axis (spec.parameter, spec.secondParameter) */
  values?: number[];
  buyRules: string[];
  sellRules: string[];
  simulation: SimulationResult;
  kpis: Kpis;
  /** round trips of the run: known with the KPIs, without making the run's trades (a whole market's are made lazily) */
  roundTrips: number;
}

export interface SpecResult {
  candidates: Candidate[];
  /** candidate indices from best to worst by the spec's KPI */
  ranking: number[];
  kpi: KpiName;
}

// compiled once per short code, not once per ticker (a whole market is 5,000+ tickers)
const compiled = new Map<string, ReturnType<typeof compileExpression>>();
function compileOnce(code: string) {
  let c = compiled.get(code);
  if (!c) {
    c = compileExpression(code);
    if (compiled.size > 1_000) compiled.clear();
    compiled.set(code, c);
  }
  return c;
}

/**
 * Bars of one ticker as the engine reads them: dates and the fields' columns; for an execution model with costs
 * also the ticker (its board and price limits) and the days as numbers (the rates in force; from the dates if absent).
 */
export type EngineBars = Pick<TickerBars, 'dates' | 'bars'> & {
  days?: ArrayLike<number>;
  code?: string;
  name?: string;
  shortName?: string;
};

// the day numbers of a ticker's dates, made once per dates array (a parameter sweep runs the same ticker many times)
const dayCache = new WeakMap<readonly string[], Int32Array>();
export function dayNumbers(dates: readonly string[]): Int32Array {
  let days = dayCache.get(dates);
  if (!days) {
    days = Int32Array.from(dates, dayOfIso);
    dayCache.set(dates, days);
  }
  return days;
}

/** The protocol's execution, or the spec's execution model with costs, on these bars and signals. */
function execute(
  spec: Pick<StrategySpec, 'capital' | 'sizing' | 'costs' | 'slippageBps' | 'exits' | 'dayRules' | 'positionSize'>,
  ticker: EngineBars,
  buy: boolean[],
  sell: boolean[],
): SimulationResult {
  const input = {
    dates: ticker.dates,
    open: ticker.bars.OPEN,
    close: ticker.bars.CLOSE,
    buy,
    sell,
    capital: spec.capital,
    sizing: spec.sizing,
  };
  // exits, day rules and sizing only when asked: without them the protocol's engine (or the costs engine), untouched
  const size = positionSizeOf(spec.positionSize);
  if (spec.exits || spec.dayRules || size) {
    const model = spec.costs === 'china' ? chinaModel() : undefined;
    return simulateWithRules({
      ...input,
      days: ticker.days ?? dayNumbers(ticker.dates),
      high: ticker.bars.HIGH,
      low: ticker.bars.LOW,
      volume: ticker.bars.VOLUME,
      code: ticker.code ?? '',
      // the price-limit rules read ST from the exchange's short name
      name: ticker.shortName ?? ticker.name ?? '',
      model,
      slippageBps: spec.slippageBps ?? model?.defaultSlippageBps ?? 0,
      exits: spec.exits,
      dayRules: spec.dayRules,
      ...(size ? { positionSize: size } : {}),
    });
  }
  if (spec.costs !== 'china') return simulate(input);
  const model = chinaModel();
  return simulateWithCosts({
    ...input,
    model,
    days: ticker.days ?? dayNumbers(ticker.dates),
    code: ticker.code ?? '',
    name: ticker.shortName ?? ticker.name ?? '',
    slippageBps: spec.slippageBps ?? model.defaultSlippageBps,
  });
}

/** The spec's sizing as the engine takes it (one of invest or amount; checkSpec refuses both). */
function positionSizeOf(size: StrategySpec['positionSize']): PositionSize | undefined {
  if (size?.amount !== undefined) return { amount: size.amount };
  if (size?.invest !== undefined) return { invest: size.invest };
  return undefined;
}

function signal(codes: string[], t: EngineBars, n: number, memo: Memo): boolean[] {
  const out = new Array<boolean>(n).fill(codes.length > 0);
  for (const code of codes) {
    const v = compileOnce(code).evaluate(t.bars, n, memo);
    // toSignal's rule inline: true where defined and non-zero
    for (let i = 0; i < n; i++) out[i] = out[i] && !Number.isNaN(v[i]) && v[i] !== 0;
  }
  return out;
}

/** One candidate's buy and sell signals on the bars (several conditions combine by intersection; none never sells). */
export function signalsOf(
  spec: StrategySpec,
  ticker: EngineBars,
  strategy: Strategy,
  values?: readonly number[],
): { buy: boolean[]; sell: boolean[] } {
  const setting = settingOf(spec, values);
  const n = ticker.dates.length;
  // the buy and sell conditions share their common subexpressions on these bars
  const memo: Memo = new Map();
  return {
    buy: signal(sideCodes(strategy, 'buy', setting), ticker, n, memo),
    sell: signal(sideCodes(strategy, 'sell', setting), ticker, n, memo),
  };
}

/** One candidate's run: its signals on the bars, then the execution rules. No KPIs, no labels. */
export function simulateCandidate(
  spec: StrategySpec,
  ticker: EngineBars,
  strategy: Strategy,
  values?: readonly number[],
): SimulationResult {
  const { buy, sell } = signalsOf(spec, ticker, strategy, values);
  return execute(spec, ticker, buy, sell);
}

/**
 * One candidate over days [from, to) only, with signals read on all the bars (an indicator on the first day of the
 * range sees the days before it, as it would have: the signals never read ahead) and a fresh start at the capital.
 */
export function simulateRange(
  spec: StrategySpec,
  ticker: TickerBars,
  strategy: Strategy,
  values: readonly number[] | undefined,
  from: number,
  to: number,
): SimulationResult {
  const { buy, sell } = signalsOf(spec, ticker, strategy, values);
  const bars = {} as Bars;
  for (const [f, col] of Object.entries(ticker.bars)) bars[f as keyof Bars] = (col as Float64Array).subarray(from, to);
  const days = dayNumbers(ticker.dates).subarray(from, to);
  return execute(
    spec,
    { dates: ticker.dates.slice(from, to), bars, days, code: ticker.code, name: ticker.name, shortName: ticker.shortName },
    buy.slice(from, to),
    sell.slice(from, to),
  );
}

/** The rules of a candidate in words (the same for every ticker of a strategy and sweep values). */
export function candidateRules(
  spec: StrategySpec,
  strategy: Strategy,
  values?: readonly number[],
): { buyRules: string[]; sellRules: string[] } {
  const setting = settingOf(spec, values);
  return { buyRules: sideLabels(strategy, 'buy', setting), sellRules: sideLabels(strategy, 'sell', setting) };
}

/** What one candidate of a spec is: which ticker, which strategy, which parameter value. */
export interface CandidatePlan {
  label: string;
  ticker: number;
  strategy: number;
  /** a sweep's candidate: its value on each axis */
  values?: number[];
}

/** The candidates of the spec's task family, in listing order (the order ties are broken in). */
export function planCandidates(spec: StrategySpec, tickers: readonly Pick<TickerBars, 'code' | 'name'>[]): CandidatePlan[] {
  switch (spec.task) {
    case 'metrics':
      return [{ label: tickers[0].code, ticker: 0, strategy: 0 }];
    case 'ticker_selection':
      return tickers.map((t, i) => ({ label: `${t.code} ${t.name}`, ticker: i, strategy: 0 }));
    case 'parameter_confirmation':
      return sweepCells(spec).map((values) => ({
        label: sweepAxes(spec)
          .map((axis, i, all) => `${axisName(axis, all)} = ${values[i]}`)
          .join(', '),
        ticker: 0,
        strategy: 0,
        values,
      }));
    case 'strategy_selection':
      // a name a model gave is shown only when inert
      return spec.strategies.map((s, i) => ({ label: `strategy ${shownValue(s.name)}`, ticker: 0, strategy: i }));
  }
}

/**
 * A sweep's cells in listing order: the first axis's values, and within each the second's (the order a tie goes
 * to the first of). One axis: its values.
 */
export function sweepCells(spec: Pick<StrategySpec, 'parameter' | 'secondParameter'>): number[][] {
  const [first, second] = sweepAxes(spec);
  if (!first) return [];
  if (!second) return first.candidates.map((v) => [v]);
  return first.candidates.flatMap((a) => second.candidates.map((b) => [a, b]));
}

function runOne(spec: StrategySpec, tickers: TickerBars[], plan: CandidatePlan): Candidate {
  const ticker = tickers[plan.ticker];
  const strategy = spec.strategies[plan.strategy];
  const simulation = simulateCandidate(spec, ticker, strategy, plan.values);
  return {
    label: plan.label,
    ticker,
    strategy,
    values: plan.values,
    simulation,
    kpis: computeKpis(simulation),
    roundTrips: simulation.trades.length,
    ...candidateRules(spec, strategy, plan.values),
  };
}

/** The whole spec on this thread (see run-threaded.ts for the same off the event loop). */
export function runSpec(spec: StrategySpec, tickers: TickerBars[]): SpecResult {
  const candidates = planCandidates(spec, tickers).map((plan) => runOne(spec, tickers, plan));
  return {
    candidates,
    kpi: spec.kpi,
    ranking: rankIndices(
      candidates.map((c) => c.kpis[spec.kpi]),
      spec.kpi,
    ),
  };
}

// buy and hold is asked for by the narration, the chart and the market table of one answer: run once per ticker and settings
const holds = new WeakMap<TickerBars, Map<string, number[]>>();

/** Equity of buying at the first open (the first allowed, with costs) with the same sizing, position size and model, held to the last close. */
export function buyAndHold(
  ticker: TickerBars,
  spec: Pick<StrategySpec, 'capital' | 'sizing' | 'costs' | 'slippageBps'> &
    Partial<Pick<StrategySpec, 'exits' | 'dayRules' | 'positionSize'>>,
): number[] {
  // the same position size as the run (half the capital held, the rest cash): a like-for-like comparison
  const size = spec.positionSize;
  const key = `${spec.capital}/${spec.sizing}/${spec.costs}/${spec.slippageBps ?? ''}/${size?.invest ?? ''}/${size?.amount ?? ''}`;
  let byKey = holds.get(ticker);
  if (!byKey) holds.set(ticker, (byKey = new Map()));
  let equity = byKey.get(key);
  if (!equity) {
    const n = ticker.dates.length;
    const buy = new Array<boolean>(n).fill(false);
    buy[0] = true;
    // held to the end: no exits, and the engine the spec's costs choose
    equity = execute({ ...spec, exits: undefined, dayRules: undefined }, ticker, buy, new Array(n).fill(false)).equity;
    byKey.set(key, equity);
  }
  return equity;
}
