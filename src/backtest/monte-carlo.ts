// A Monte Carlo of a run's trade sequence: the same trades in other orders.
// Each trade's return is its P&L over the equity at the close before its sale;
// a reshuffle compounds them from the capital, and its drawdown is read on that
// path. The order is drawn by a seeded PRNG (mulberry32, Fisher-Yates), so the
// same run gives the same line every time.
import type { Trade } from './simulator.js';

const MONTE_CARLO_RUNS = 1_000;
const MONTE_CARLO_SEED = 37;

export interface MonteCarlo {
  runs: number;
  seed: number;
  trades: number;
  /** the drawdown threshold asked about, and the share of reshuffles whose drawdown was worse */
  threshold: number;
  worseThanThreshold: number;
  medianDrawdown: number;
  /** the drawdown that 5% of the reshuffles were worse than */
  drawdown95: number;
  /** the share of reshuffles that ended below the capital */
  lossShare: number;
}

/** Each trade's return on the equity at the close before its sale day (`equity` has the day-0 anchor first). */
export function tradeReturns(trades: readonly Trade[], dates: readonly string[], equity: readonly number[]): number[] {
  const index = new Map(dates.map((d, i) => [d, i]));
  return trades.map((t) => {
    const i = index.get(t.sell_date);
    const before = i === undefined ? equity[0] : equity[i];
    return before > 0 ? t.pnl / before : 0;
  });
}

const quantile = (sorted: Float64Array, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

export function reshuffleTrades(returns: readonly number[], threshold = 0.3, runs = MONTE_CARLO_RUNS, seed = MONTE_CARLO_SEED): MonteCarlo {
  // the PRNG (mulberry32: a small, well-mixed 32-bit generator, uniform on [0, 1)), typed arrays and the path's
  // drawdown inline: a portfolio's 1,000+ trades are a million steps
  let state = seed >>> 0;
  const order = Float64Array.from(returns);
  const drawdowns = new Float64Array(runs);
  let worse = 0;
  let losses = 0;
  for (let k = 0; k < runs; k++) {
    for (let i = order.length - 1; i > 0; i--) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const j = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * (i + 1));
      const swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    let e = 1;
    let peak = 1;
    let drawdown = 0;
    for (let i = 0; i < order.length; i++) {
      e *= 1 + order[i];
      if (e > peak) peak = e;
      drawdown = Math.max(drawdown, (peak - e) / peak);
    }
    drawdowns[k] = drawdown;
    if (drawdown > threshold) worse++;
    if (e < 1) losses++;
  }
  drawdowns.sort();
  return {
    runs,
    seed,
    trades: returns.length,
    threshold,
    worseThanThreshold: worse / runs,
    medianDrawdown: quantile(drawdowns, 0.5),
    drawdown95: quantile(drawdowns, 0.95),
    lossShare: losses / runs,
  };
}
