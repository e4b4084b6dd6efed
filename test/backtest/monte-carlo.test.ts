// The Monte Carlo of a trade sequence (monte-carlo.ts): by hand on two trades, and the same numbers as the plain
// reading of its definition (mulberry32 seeded 37, Fisher-Yates from the end, the path compounded from 1) on longer ones.
import { describe, expect, it } from 'vitest';
import { reshuffleTrades } from '../../src/backtest/monte-carlo.js';

/** The definition as written: a closure PRNG, arrays, the drawdown of each reshuffled path. */
function reference(returns: number[], threshold = 0.3, runs = 1_000, seed = 37) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const order = [...returns];
  const drawdowns: number[] = [];
  let worse = 0;
  let losses = 0;
  for (let k = 0; k < runs; k++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    let e = 1;
    let peak = 1;
    let worst = 0;
    for (const r of order) {
      e *= 1 + r;
      peak = Math.max(peak, e);
      worst = Math.max(worst, (peak - e) / peak);
    }
    drawdowns.push(worst);
    if (worst > threshold) worse++;
    if (e < 1) losses++;
  }
  drawdowns.sort((x, y) => x - y);
  const q = (p: number) => drawdowns[Math.min(runs - 1, Math.floor(p * runs))];
  return {
    runs,
    seed,
    trades: returns.length,
    threshold,
    worseThanThreshold: worse / runs,
    medianDrawdown: q(0.5),
    drawdown95: q(0.95),
    lossShare: losses / runs,
  };
}

describe('the Monte Carlo of a trade sequence', () => {
  it('by hand: +10% and -10% in either order fall 10% from a peak and end at 0.99', () => {
    const mc = reshuffleTrades([0.1, -0.1]);
    // +10% then -10%: 1.1 -> 0.99, (1.1 - 0.99) / 1.1 = 10%; -10% first: 0.9 from the peak of 1, 10%
    expect(mc.medianDrawdown).toBeCloseTo(0.1, 12);
    expect(mc.drawdown95).toBeCloseTo(0.1, 12);
    expect(mc.worseThanThreshold).toBe(0);
    expect(mc.lossShare).toBe(1);
    expect(reshuffleTrades([0.1, -0.1], 0.05).worseThanThreshold).toBe(1);
  });

  it('gives the numbers of the plain reading of its definition, to the bit, up to a portfolio-sized 1,200 trades', () => {
    let s = 11;
    const rnd = () => (s = (s * 16807) % 2_147_483_647) / 2_147_483_647;
    for (const n of [3, 40, 1_200]) {
      const returns = Array.from({ length: n }, () => (rnd() - 0.48) * 0.12);
      expect(reshuffleTrades(returns)).toEqual(reference(returns));
      expect(reshuffleTrades(returns, 0.1, 200, 5)).toEqual(reference(returns, 0.1, 200, 5));
    }
  });
});
