// "Best" for the selection tasks: the protocol's direction per KPI, ties to
// the first candidate as listed, a null KPI ranked last.
import type { KpiName } from './kpis.js';

const MINIMISED: ReadonlySet<KpiName> = new Set(['max_drawdown', 'volatility']);

export function isMinimised(kpi: KpiName): boolean {
  return MINIMISED.has(kpi);
}

/** Index of the best candidate, or -1 when every value is null (or there are none). */
export function bestIndex(values: readonly (number | null)[], kpi: KpiName): number {
  const sign = isMinimised(kpi) ? -1 : 1;
  let best = -1;
  values.forEach((v, i) => {
    if (v === null) return;
    if (best < 0 || sign * v > sign * (values[best] as number)) best = i;
  });
  return best;
}

/** Candidate indices from best to worst (stable: ties keep listing order; nulls last). */
export function rankIndices(values: readonly (number | null)[], kpi: KpiName): number[] {
  // over typed arrays, without an object per candidate: a whole market's 5,401 (or a grid's 1,000) sort in a few ms
  const sign = isMinimised(kpi) ? -1 : 1;
  const keys = new Float64Array(values.length);
  const order = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    keys[i] = v === null ? NaN : sign * v;
    order[i] = i;
  }
  order.sort((a, b) => {
    const x = keys[a];
    const y = keys[b];
    if (x !== x || y !== y) return x !== x ? (y !== y ? a - b : 1) : -1;
    return y - x || a - b;
  });
  return Array.from(order);
}

/** What a candidate must have to be ranked: trading days in its window and round trips (docs/backtest-definitions.md). */
export interface RankingMinimum {
  days: number;
  trades: number;
}

/** About three months of trading days, and at least one round trip: a candidate that never traded has no record. */
export const DEFAULT_MINIMUM: RankingMinimum = { days: 60, trades: 1 };

export interface HonestRanking {
  /** candidate indices that meet the minimum, best first (the protocol's order among them) */
  ranked: number[];
  /** those below it, in the protocol's order, with why */
  apart: { index: number; why: string }[];
  /** the minimum applied: the days capped at the longest record (a window shorter than the minimum asks for the whole window) */
  minimum: RankingMinimum;
}

/**
 * The protocol's ranking with the candidates below a minimum history or number of round trips taken out and listed
 * apart. The protocol's own ranking (what BacktestBench scores) is not changed: this is what the answer headlines.
 */
export function honestRanking(
  ranking: readonly number[],
  record: (index: number) => { days: number; trades: number },
  minimum: RankingMinimum,
): HonestRanking {
  let longest = 0;
  for (const i of ranking) longest = Math.max(longest, record(i).days);
  const applied = { days: Math.min(minimum.days, longest), trades: minimum.trades };
  const ranked: number[] = [];
  const apart: HonestRanking['apart'] = [];
  for (const i of ranking) {
    const r = record(i);
    const why = [
      r.days < applied.days ? `${r.days} trading day${r.days === 1 ? '' : 's'}` : '',
      r.trades < applied.trades ? (r.trades === 0 ? 'no trades' : `${r.trades} round trip${r.trades === 1 ? '' : 's'}`) : '',
    ].filter(Boolean);
    if (why.length) apart.push({ index: i, why: why.join(', ') });
    else ranked.push(i);
  }
  return { ranked, apart, minimum: applied };
}
