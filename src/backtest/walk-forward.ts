// A walk-forward check of a "best of" backtest (best parameter, best
// strategy): the window is split at a share of its trading days; the best
// candidate is picked on the first part (in sample) and then run on the rest
// (out of sample), which it never saw. How much of its in-sample edge, its KPI
// above the candidates' median, is still there out of sample is the answer to
// "was it luck?".
import type { KpiName } from './kpis.js';
import { computeKpis } from './kpis.js';
import { bestIndex, isMinimised } from './ranking.js';
import { simulateRange, type CandidatePlan, type TickerBars } from './run-spec.js';
import type { StrategySpec } from './spec.js';

export interface WalkForwardResult {
  inSample: { first: string; last: string; days: number };
  outOfSample: { first: string; last: string; days: number };
  rows: { label: string; inSample: number | null; outOfSample: number | null }[];
  /** the candidate picked in sample, and the one that would have been best out of sample */
  pick: number;
  bestOutOfSample: number;
  /** the pick's KPI above the candidates' median (below it for drawdown and volatility), in and out of sample */
  edgeInSample: number | null;
  edgeOutOfSample: number | null;
  /** edgeOutOfSample / edgeInSample: 1 is all of it, 0 none, below 0 worse than the median */
  survived: number | null;
}

/** Out-of-sample days a split must leave at least (fewer says nothing). */
export const MIN_OUT_OF_SAMPLE_DAYS = 20;

function median(values: (number | null)[]): number | null {
  const v = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
  if (!v.length) return null;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

export function walkForward(
  spec: StrategySpec,
  ticker: TickerBars,
  plans: CandidatePlan[],
  share: number,
  kpi: KpiName,
): WalkForwardResult {
  const n = ticker.dates.length;
  const k = Math.round(n * share);
  const kpiOf = (plan: CandidatePlan, from: number, to: number) =>
    computeKpis(simulateRange(spec, ticker, spec.strategies[plan.strategy], plan.values, from, to))[kpi];
  const rows = plans.map((p) => ({ label: p.label, inSample: kpiOf(p, 0, k), outOfSample: kpiOf(p, k, n) }));
  const pick = bestIndex(
    rows.map((r) => r.inSample),
    kpi,
  );
  const bestOut = bestIndex(
    rows.map((r) => r.outOfSample),
    kpi,
  );
  const sign = isMinimised(kpi) ? -1 : 1;
  const edge = (value: number | null, mid: number | null) => (value === null || mid === null ? null : sign * (value - mid));
  const edgeIn = pick < 0 ? null : edge(rows[pick].inSample, median(rows.map((r) => r.inSample)));
  const edgeOut = pick < 0 ? null : edge(rows[pick].outOfSample, median(rows.map((r) => r.outOfSample)));
  return {
    inSample: { first: ticker.dates[0], last: ticker.dates[k - 1], days: k },
    outOfSample: { first: ticker.dates[k], last: ticker.dates[n - 1], days: n - k },
    rows,
    pick,
    bestOutOfSample: bestOut,
    edgeInSample: edgeIn,
    edgeOutOfSample: edgeOut,
    survived: edgeIn !== null && edgeOut !== null && edgeIn > 0 ? edgeOut / edgeIn : null,
  };
}
