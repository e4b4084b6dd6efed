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
  const sign = isMinimised(kpi) ? -1 : 1;
  return values
    .map((v, i) => ({ v, i }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === null ? (b.v === null ? a.i - b.i : 1) : -1;
      return sign * (b.v - a.v) || a.i - b.i;
    })
    .map((x) => x.i);
}
