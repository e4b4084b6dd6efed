// Each factor of the library, computed through its short code, against an
// independent plain-loop computation of the same formula on a fixed series.
import { describe, expect, it } from 'vitest';
import { compileExpression, type Bars } from '../../src/backtest/expr/compile.js';
import { instantiate, loadLibrary, resolveParams } from '../../src/backtest/library.js';

const N = 90;
const close = Array.from({ length: N }, (_, t) => 10 + 2 * Math.sin(t / 5) + 0.03 * t);
const open = close.map((c, t) => (t === 0 ? c : close[t - 1] + 0.1 * Math.cos(t)));
const high = close.map((c, t) => Math.max(c, open[t]) + 0.2 + 0.05 * (t % 3));
const low = close.map((c, t) => Math.min(c, open[t]) - 0.2 - 0.05 * (t % 4));
const volume = close.map((_, t) => 1000 + 100 * (t % 7));
const amount = volume.map((v, t) => v * close[t]);
const bars: Bars = {
  OPEN: Float64Array.from(open),
  CLOSE: Float64Array.from(close),
  HIGH: Float64Array.from(high),
  LOW: Float64Array.from(low),
  VOLUME: Float64Array.from(volume),
  AMOUNT: Float64Array.from(amount),
  PERCENTAGE_CHANGE: new Float64Array(N),
};
const T = N - 1;

// ---- independent helpers: f is a function of the day index
type F = (t: number) => number;
const C1: F = (t) => close[t - 1];
const C2: F = (t) => close[t - 2];
const H1: F = (t) => high[t - 1];
const L1: F = (t) => low[t - 1];
const V1: F = (t) => volume[t - 1];
const A1: F = (t) => amount[t - 1];
const R1: F = (t) => C1(t) / C2(t) - 1;
const range = (n: number, t: number) => Array.from({ length: n }, (_, i) => t - n + 1 + i);
const ma =
  (f: F, n: number): F =>
  (t) =>
    range(n, t).reduce((s, i) => s + f(i), 0) / n;
const sum =
  (f: F, n: number): F =>
  (t) =>
    range(n, t).reduce((s, i) => s + f(i), 0);
const sd =
  (f: F, n: number): F =>
  (t) => {
    const m = ma(f, n)(t);
    return Math.sqrt(range(n, t).reduce((s, i) => s + (f(i) - m) ** 2, 0) / (n - 1));
  };
const hhv =
  (f: F, n: number): F =>
  (t) =>
    Math.max(...range(n, t).map(f));
const llv =
  (f: F, n: number): F =>
  (t) =>
    Math.min(...range(n, t).map(f));
/** recursive smoothing seeded at day `first` (where f is first defined) */
const smooth = (f: F, w: number, first: number): F => {
  const memo = new Map<number, number>();
  const y = (t: number): number => {
    if (t === first) return f(first);
    if (!memo.has(t)) memo.set(t, w * f(t) + (1 - w) * y(t - 1));
    return memo.get(t)!;
  };
  return y;
};
const ema = (f: F, n: number, first: number) => smooth(f, 2 / (n + 1), first);
const sma3 = (f: F, n: number, m: number, first: number) => smooth(f, m / n, first);
const tr: F = (t) => Math.max(H1(t) - L1(t), Math.abs(H1(t) - C2(t)), Math.abs(L1(t) - C2(t)));
const dif: F = (t) => ema(C1, 12, 1)(t) - ema(C1, 26, 1)(t);
const dea = ema(dif, 9, 1);
const rsv: F = (t) => ((C1(t) - llv(L1, 9)(t)) / (hhv(H1, 9)(t) - llv(L1, 9)(t))) * 100;
const K = sma3(rsv, 3, 1, 9);
const D = sma3(K, 3, 1, 9);
const tp: F = (t) => (H1(t) + L1(t) + C1(t)) / 3;
const bbi: F = (t) => (ma(C1, 3)(t) + ma(C1, 6)(t) + ma(C1, 12)(t) + ma(C1, 24)(t)) / 4;
const slope =
  (f: F, n: number): F =>
  (t) => {
    const xs = range(n, 0).map((_, i) => i);
    const ys = range(n, t).map(f);
    const mx = (n - 1) / 2;
    const my = ys.reduce((a, b) => a + b, 0) / n;
    return xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  };
const skew =
  (f: F, n: number): F =>
  (t) => {
    const ys = range(n, t).map(f);
    const m = ys.reduce((a, b) => a + b, 0) / n;
    const m2 = ys.reduce((s, y) => s + (y - m) ** 2, 0) / n;
    const m3 = ys.reduce((s, y) => s + (y - m) ** 3, 0) / n;
    return (Math.sqrt(n * (n - 1)) / (n - 2)) * (m3 / m2 ** 1.5);
  };
const cross =
  (a: F, b: F, up: boolean): F =>
  (t) =>
    Number(up ? a(t) > b(t) && a(t - 1) <= b(t - 1) : a(t) < b(t) && a(t - 1) >= b(t - 1));

/** The expected value of each factor at day T, with default parameters. */
const expectedAt = (T: number): Record<string, number> => ({
  CLOSE: C1(T),
  OPEN: open[T],
  MA: ma(C1, 20)(T),
  EMA: ema(C1, 20, 1)(T),
  BOLL_UPPER: ma(C1, 20)(T) + 2 * sd(C1, 20)(T),
  BOLL_LOWER: ma(C1, 20)(T) - 2 * sd(C1, 20)(T),
  BBI: bbi(T),
  ROC: (C1(T) / close[T - 13] - 1) * 100,
  MOM: C1(T) - close[T - 11],
  MTM_MA: ma((t) => C1(t) - close[t - 13], 6)(T),
  BIAS: ((C1(T) - ma(C1, 6)(T)) / ma(C1, 6)(T)) * 100,
  RSI: (sma3((t) => Math.max(C1(t) - C2(t), 0), 14, 1, 2)(T) / sma3((t) => Math.abs(C1(t) - C2(t)), 14, 1, 2)(T)) * 100,
  PSY: (sum((t) => Number(C1(t) > C2(t)), 12)(T) / 12) * 100,
  CMO:
    ((sum((t) => Math.max(C1(t) - C2(t), 0), 20)(T) - sum((t) => Math.max(C2(t) - C1(t), 0), 20)(T)) /
      sum((t) => Math.abs(C1(t) - C2(t)), 20)(T)) *
    100,
  TRIX: (() => {
    const e3 = ema(ema(ema(C1, 12, 1), 12, 1), 12, 1);
    return (e3(T) / e3(T - 1) - 1) * 100;
  })(),
  DPO: C1(T) - ma(C1, 20)(T - 11),
  RET1: R1(T) * 100,
  GAP: (open[T] / C1(T) - 1) * 100,
  EMA_CROSS_UP: cross(ema(C1, 12, 1), ema(C1, 26, 1), true)(T),
  EMA_CROSS_DOWN: cross(ema(C1, 12, 1), ema(C1, 26, 1), false)(T),
  MA_CROSS_UP: cross(ma(C1, 5), ma(C1, 20), true)(T),
  MA_CROSS_DOWN: cross(ma(C1, 5), ma(C1, 20), false)(T),
  MA_RATIO: (ma(C1, 5)(T) / ma(C1, 20)(T) - 1) * 100,
  MACD_DIF: dif(T),
  MACD_DEA: dea(T),
  MACD_HIST: 2 * (dif(T) - dea(T)),
  MACD_CROSS_UP: cross(dif, dea, true)(T),
  MACD_CROSS_DOWN: cross(dif, dea, false)(T),
  KDJ_K: K(T),
  KDJ_D: D(T),
  KDJ_J: 3 * K(T) - 2 * D(T),
  KDJ_CROSS_UP: cross(K, D, true)(T),
  KDJ_CROSS_DOWN: cross(K, D, false)(T),
  WR: ((hhv(H1, 14)(T) - C1(T)) / (hhv(H1, 14)(T) - llv(L1, 14)(T))) * 100,
  CCI: (tp(T) - ma(tp, 14)(T)) / (0.015 * sd(tp, 14)(T)),
  BOLL_PCTB: (C1(T) - (ma(C1, 20)(T) - 2 * sd(C1, 20)(T))) / (4 * sd(C1, 20)(T)),
  BOLL_WIDTH: ((4 * sd(C1, 20)(T)) / ma(C1, 20)(T)) * 100,
  ATR: ma(tr, 14)(T),
  ATR_PCT: (ma(tr, 14)(T) / C1(T)) * 100,
  OBV_RATIO: sum((t) => Math.sign(C1(t) - C2(t)) * V1(t), 20)(T) / sum(V1, 20)(T),
  VROC: (V1(T) / volume[T - 13] - 1) * 100,
  VOL_RATIO: V1(T) / ma(V1, 5)(T),
  AMOUNT_RATIO: A1(T) / ma(A1, 20)(T),
  BBI_BIAS: (C1(T) / bbi(T) - 1) * 100,
  BULL_POWER: H1(T) - ema(C1, 13, 1)(T),
  BEAR_POWER: L1(T) - ema(C1, 13, 1)(T),
  CLV: (C1(T) - L1(T)) / (H1(T) - L1(T)),
  VOLATILITY: sd(R1, 20)(T) * Math.sqrt(252) * 100,
  DOWNSIDE_VOL: sd((t) => Math.min(R1(t), 0), 20)(T) * Math.sqrt(252) * 100,
  SKEWNESS: skew(R1, 20)(T),
  DRAWDOWN: (C1(T) / hhv(H1, 60)(T) - 1) * 100,
  RISE_FROM_LOW: (C1(T) / llv(L1, 60)(T) - 1) * 100,
  MAX_LOSS: llv(R1, 20)(T) * 100,
  RETURN_STABILITY: ma(R1, 60)(T) / sd(R1, 60)(T),
  UP_DAY_RATIO: sum((t) => Number(C1(t) > C2(t)), 60)(T) / 60,
  TREND_SLOPE: (slope(C1, 20)(T) / ma(C1, 20)(T)) * 100,
  TREND_DRAWDOWN: (C1(T) / Math.max(...range(T, T).map(C1)) - 1) * 100,
  AMOUNT_TREND: ma(A1, 5)(T) / ma(A1, 60)(T),
});
const EXPECTED = expectedAt(T);
/** days checked: late enough for every warm-up (60-day windows) */
const DAYS = Array.from({ length: N - 62 }, (_, i) => 62 + i);

const library = loadLibrary();

describe('factor library', () => {
  it('has at least 43 factors across the four categories and 80 rules, 39+ buy and 41+ sell', () => {
    expect(library.factors.length).toBeGreaterThanOrEqual(43);
    expect(new Set(library.factors.map((f) => f.category))).toEqual(new Set(['Risk', 'Quality', 'Momentum', 'Technical']));
    expect(library.rules.length).toBeGreaterThanOrEqual(80);
    expect(library.rules.filter((r) => r.side === 'buy').length).toBeGreaterThanOrEqual(39);
    expect(library.rules.filter((r) => r.side === 'sell').length).toBeGreaterThanOrEqual(41);
    expect(new Set(library.rules.map((r) => r.id)).size).toBe(library.rules.length);
  });

  it('has an independent expected value for every factor', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(library.factors.map((f) => f.id).sort());
  });

  it.each(library.factors.map((f) => [f.id, f] as const))('%s: short code matches the hand computation', (id, factor) => {
    const values = compileExpression(instantiate(factor)).evaluate(bars, N);
    for (const day of DAYS) {
      const expected = expectedAt(day)[id];
      expect(Number.isFinite(expected)).toBe(true);
      expect(values[day], `${id} on day ${day}`).toBeCloseTo(expected, 9);
    }
    if (factor.kind === 'event') {
      // the series crosses: the check above saw the event fire at least once
      expect(
        DAYS.some((day) => values[day] === 1),
        `${id} fires in days ${DAYS[0]}..${T}`,
      ).toBe(true);
    }
  });

  it('every rule compiles with its parameters', () => {
    for (const rule of library.rules) {
      const factor = library.factor(rule.factor)!;
      expect(() => compileExpression(`${instantiate(factor, rule.params)} ${rule.op} ${rule.threshold}`)).not.toThrow();
    }
  });

  it('checks parameters by name and minimum', () => {
    const rsi = library.factor('rsi')!;
    expect(instantiate(rsi, { n: 6 })).toContain(',6,1)');
    expect(() => resolveParams(rsi, { m: 3 })).toThrow('RSI has no parameter "m" (it takes n)');
    expect(() => resolveParams(rsi, { n: 1 })).toThrow('RSI parameter n must be a whole number of at least 2, not 1');
  });
});

describe('no look-ahead, as a property of every factor', () => {
  it("changing the bars after day t (and day t's close, high, low, volume) never changes any factor value up to t", () => {
    for (const t of [30, 61, 75]) {
      const spoiled: Bars = Object.fromEntries(
        Object.entries(bars).map(([field, series]) => [
          field,
          series.map((v: number, i: number) => (i > t || (i === t && field !== 'OPEN') ? v * 1.7 + 3 : v)),
        ]),
      ) as Bars;
      for (const factor of library.factors) {
        const code = compileExpression(instantiate(factor));
        const before = code.evaluate(bars, N).slice(0, t + 1);
        const after = code.evaluate(spoiled, N).slice(0, t + 1);
        expect(Array.from(after), `${factor.id} up to day ${t}`).toEqual(Array.from(before));
      }
    }
  });
});
