// What an answer sets beside the winner of a run, computed with it on the worker threads (run-threaded.ts), so
// that the narration only tells: the winner's own buy and hold, the same run without costs (the protocol's),
// the market over the same days, and the walk-forward check of a pick.
import { versusMarket, type MarketIndex, type VersusMarket } from './benchmark.js';
import { computeKpis, type Kpis } from './kpis.js';
import { buyAndHold, simulateCandidate, type CandidatePlan, type TickerBars } from './run-spec.js';
import type { StrategySpec } from './spec.js';
import { MIN_OUT_OF_SAMPLE_DAYS, walkForward, type WalkForwardResult } from './walk-forward.js';

export interface ComparisonInput {
  spec: StrategySpec;
  /** the winner: its ticker, strategy and sweep values */
  ticker: TickerBars;
  strategy: number;
  values?: number[];
  market?: MarketIndex;
  /** with a walk-forward check: every candidate of the run (one ticker) */
  plans?: CandidatePlan[];
}

export interface Comparisons {
  /** the winner's ticker bought at its first allowed open and held, with the same sizing and costs */
  hold: { equity: number[]; return: number };
  /** the same run without costs, when the run had them */
  protocol?: { kpis: Kpis; trades: number };
  market?: VersusMarket & { members: number };
  walkForward?: WalkForwardResult;
  /** a walk-forward check asked for on a window too short to keep MIN_OUT_OF_SAMPLE_DAYS out of sample: its days */
  walkForwardTooShort?: number;
}

export function compareWinner(input: ComparisonInput): Comparisons {
  const { spec, ticker } = input;
  const strategy = spec.strategies[input.strategy];
  const holdEquity = buyAndHold(ticker, spec);
  const out: Comparisons = { hold: { equity: holdEquity, return: holdEquity[holdEquity.length - 1] / holdEquity[0] - 1 } };
  if (spec.costs !== 'none') {
    const protocol = simulateCandidate({ ...spec, costs: 'none' }, ticker, strategy, input.values);
    out.protocol = { kpis: computeKpis(protocol), trades: protocol.trades.length };
  }
  if (input.market && input.market.members > 0) {
    const run = simulateCandidate(spec, ticker, strategy, input.values);
    out.market = { ...versusMarket(run.equity, ticker.dates, input.market), members: input.market.members };
  }
  if (spec.walkForward !== undefined && input.plans) {
    if (Math.round(ticker.dates.length * (1 - spec.walkForward)) < MIN_OUT_OF_SAMPLE_DAYS) out.walkForwardTooShort = ticker.dates.length;
    else out.walkForward = walkForward(spec, ticker, input.plans, spec.walkForward, spec.kpi);
  }
  return out;
}
