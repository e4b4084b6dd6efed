// Bars made from a seed, for engine tests that need no database: a random walk
// of closes with opens near them, one bar a calendar day.
import type { TickerBars } from '../../src/backtest/run-spec.js';

export function generatedTicker(n: number, seed: number, code = '600000'): TickerBars {
  let s = seed;
  const rand = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const dates = Array.from({ length: n }, (_, i) => new Date(Date.UTC(2021, 0, 4 + i)).toISOString().slice(0, 10));
  const open = new Float64Array(n);
  const close = new Float64Array(n);
  let p = 20;
  for (let i = 0; i < n; i++) {
    open[i] = Math.round(p * (1 + (rand() - 0.5) * 0.02) * 100) / 100;
    p = Math.max(1, Math.round(p * (1 + (rand() - 0.5) * 0.05) * 100) / 100);
    close[i] = p;
  }
  return { code, name: 'Generated', dates, bars: { OPEN: open, CLOSE: close } as TickerBars['bars'] };
}
