// Runs a strategy spec over bars already fetched: every candidate of the task
// family (one run, each ticker, each parameter value, each strategy), their
// KPIs, and the best by the protocol's direction and tie rules. No I/O.
import { compileExpression, toSignal, type Bars } from './expr/compile.js';
import { computeKpis, type Kpis, type KpiName } from './kpis.js';
import { rankIndices } from './ranking.js';
import { simulate, type SimulationResult } from './simulator.js';
import { conditionCode, conditionLabel, type Strategy, type StrategySpec } from './spec.js';

export interface TickerBars {
  code: string;
  name: string;
  dates: string[];
  bars: Bars;
}

export interface Candidate {
  /** what the candidate is, as the user would name it: a ticker, "n = 14", "strategy B" */
  label: string;
  ticker: TickerBars;
  strategy: Strategy;
  paramValue?: number;
  buyRules: string[];
  sellRules: string[];
  simulation: SimulationResult;
  kpis: Kpis;
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

function signal(codes: string[], t: TickerBars, n: number): boolean[] {
  const out = new Array<boolean>(n).fill(codes.length > 0);
  for (const code of codes) {
    const s = toSignal(compileOnce(code).evaluate(t.bars, n));
    for (let i = 0; i < n; i++) out[i] = out[i] && s[i];
  }
  return out;
}

function runOne(spec: StrategySpec, ticker: TickerBars, strategy: Strategy, label: string, paramValue?: number): Candidate {
  const override = spec.parameter && paramValue !== undefined ? { ...spec.parameter, value: paramValue } : undefined;
  const n = ticker.dates.length;
  const buyCodes = strategy.buy.map((c) => conditionCode(c, override));
  const sellCodes = strategy.sell.map((c) => conditionCode(c, override));
  const simulation = simulate({
    dates: ticker.dates, open: ticker.bars.OPEN, close: ticker.bars.CLOSE,
    // several buy (sell) conditions combine by intersection; no sell condition never sells
    buy: signal(buyCodes, ticker, n), sell: signal(sellCodes, ticker, n),
    capital: spec.capital, sizing: spec.sizing,
  });
  return {
    label, ticker, strategy, paramValue, simulation, kpis: computeKpis(simulation),
    buyRules: strategy.buy.map((c) => conditionLabel(c, override)),
    sellRules: strategy.sell.map((c) => conditionLabel(c, override)),
  };
}

export function runSpec(spec: StrategySpec, tickers: TickerBars[]): SpecResult {
  const candidates: Candidate[] = [];
  switch (spec.task) {
    case 'metrics':
      candidates.push(runOne(spec, tickers[0], spec.strategies[0], tickers[0].code));
      break;
    case 'ticker_selection':
      for (const t of tickers) candidates.push(runOne(spec, t, spec.strategies[0], `${t.code} ${t.name}`));
      break;
    case 'parameter_confirmation':
      for (const v of spec.parameter!.candidates) {
        candidates.push(runOne(spec, tickers[0], spec.strategies[0], `${spec.parameter!.factor}.${spec.parameter!.param} = ${v}`, v));
      }
      break;
    case 'strategy_selection':
      for (const s of spec.strategies) candidates.push(runOne(spec, tickers[0], s, `strategy ${s.name}`));
      break;
  }
  return { candidates, kpi: spec.kpi, ranking: rankIndices(candidates.map((c) => c.kpis[spec.kpi]), spec.kpi) };
}

/** Equity of buying at the first open with the same sizing and holding to the last close. */
export function buyAndHold(ticker: TickerBars, capital: number, sizing: StrategySpec['sizing']): number[] {
  const n = ticker.dates.length;
  const buy = new Array<boolean>(n).fill(false);
  buy[0] = true;
  return simulate({ dates: ticker.dates, open: ticker.bars.OPEN, close: ticker.bars.CLOSE, buy, sell: new Array(n).fill(false), capital, sizing }).equity;
}
