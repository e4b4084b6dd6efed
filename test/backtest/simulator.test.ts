import { describe, expect, it } from 'vitest';
import { simulate, type SimulationInput } from '../../src/backtest/simulator.js';
import { computeKpis } from '../../src/backtest/kpis.js';

const days = (n: number) => Array.from({ length: n }, (_, i) => `d${i}`);
const run = (o: Partial<SimulationInput> & Pick<SimulationInput, 'open' | 'close' | 'buy' | 'sell'>) =>
  simulate({ dates: days(o.open.length), capital: 10_000, ...o });

describe('simulate: the execution rules', () => {
  // open and close of five days; the numbers are small enough to check by hand
  const open = [10, 11, 12, 13, 14];
  const close = [10.5, 11.5, 12.5, 12, 15];

  it('buys whole lots at the open, sells all at the close, never on the entry day, never buys on the last day', () => {
    const r = run({ open, close, buy: [true, false, true, false, true], sell: [true, true, false, true, false] });
    // day 0: 1,000 shares at 10 (cash 0); its sell signal is ignored (no T+0)
    // day 1: sell at 11.50; day 2: 900 shares at 12 (cash 700); day 3: sell at 12; day 4: buy refused (last day)
    expect(r.trades).toEqual([
      { buy_date: 'd0', buy_price: 10, sell_date: 'd1', sell_price: 11.5, shares: 1000, pnl: 1500, forced: false },
      { buy_date: 'd2', buy_price: 12, sell_date: 'd3', sell_price: 12, shares: 900, pnl: 0, forced: false },
    ]);
    expect(r.equity).toEqual([10000, 10500, 11500, 11950, 11500, 11500]);
  });

  it('liquidates an open position at the last close, as a round trip', () => {
    const r = run({ open, close, buy: [false, true, false, false, false], sell: [false, false, false, false, false] });
    expect(r.trades).toEqual([{ buy_date: 'd1', buy_price: 11, sell_date: 'd4', sell_price: 15, shares: 900, pnl: 3600, forced: true }]);
    expect(r.equity.at(-1)).toBe(10000 - 9900 + 900 * 15);
  });

  it('does one action a day: a sell day is not also a buy day', () => {
    const r = run({ open, close, buy: [true, true, true, true, true], sell: [false, true, false, false, false] });
    // sold on day 1, bought again on day 2 (not day 1), liquidated on day 4
    expect(r.trades.map((t) => [t.buy_date, t.sell_date])).toEqual([
      ['d0', 'd1'],
      ['d2', 'd4'],
    ]);
  });

  it('does nothing when a lot is unaffordable', () => {
    const r = run({ open: [200, 200, 200], close: [200, 210, 220], buy: [true, true, false], sell: [false, false, false] });
    expect(r.trades).toEqual([]);
    expect(r.equity).toEqual([10000, 10000, 10000, 10000]);
  });

  it('sizes by shares when asked (BacktestBench reference), refusing fewer than 100', () => {
    const shares = run({
      open: [30, 30, 30],
      close: [30, 31, 32],
      buy: [true, false, false],
      sell: [false, false, false],
      sizing: 'shares',
    });
    expect(shares.trades[0].shares).toBe(333);
    const lots = run({ open: [30, 30, 30], close: [30, 31, 32], buy: [true, false, false], sell: [false, false, false] });
    expect(lots.trades[0].shares).toBe(300);
    const tooFew = run({ open: [120, 1, 1], close: [1, 1, 1], buy: [true, false, false], sell: [false, false, false], sizing: 'shares' });
    expect(tooFew.trades).toEqual([]);
  });

  it('a one-day window cannot trade: buying on the last day is refused', () => {
    const r = run({ open: [10], close: [11], buy: [true], sell: [true] });
    expect(r).toEqual({ equity: [10000, 10000], trades: [] });
  });
});

describe('computeKpis: the seven KPIs', () => {
  it('computes each KPI of the hand-checked run', () => {
    const r = simulate({
      dates: days(5),
      capital: 10_000,
      open: [10, 11, 12, 13, 14],
      close: [10.5, 11.5, 12.5, 12, 15],
      buy: [true, false, true, false, true],
      sell: [true, true, false, true, false],
    });
    const k = computeKpis(r);
    expect(k.return_ratio).toBeCloseTo(0.15, 12);
    expect(k.max_drawdown).toBeCloseTo(450 / 11950, 12);
    // values from an independent computation (Python statistics.stdev, ddof = 1)
    expect(k.volatility).toBeCloseTo(0.8021995231568017, 12);
    expect(k.sharpe_ratio).toBeCloseTo(9.186076219858707, 10);
    expect(k.calmar_ratio).toBeCloseTo(30405.16766539009, 6);
    // one win (1,500), one flat trip (0 is neither a win nor a loss)
    expect(k.win_rate).toBe(0.5);
    expect(k.profit_loss_ratio).toBeNull();
  });

  it('profit/loss ratio is mean win over absolute mean loss', () => {
    const k = computeKpis({
      equity: [100, 110, 90],
      trades: [
        { buy_date: 'a', buy_price: 1, sell_date: 'b', sell_price: 2, shares: 100, pnl: 100, forced: false },
        { buy_date: 'a', buy_price: 1, sell_date: 'b', sell_price: 2, shares: 100, pnl: 300, forced: false },
        { buy_date: 'a', buy_price: 2, sell_date: 'b', sell_price: 1, shares: 100, pnl: -50, forced: false },
      ],
    });
    expect(k.profit_loss_ratio).toBe(200 / 50);
    expect(k.win_rate).toBeCloseTo(2 / 3, 15);
  });

  it('a strategy that never trades: return 0, drawdown 0, and null where undefined', () => {
    const r = simulate({
      dates: days(4),
      open: [1, 2, 3, 4],
      close: [1, 2, 3, 4],
      buy: [false, false, false, false],
      sell: [false, false, false, false],
    });
    expect(computeKpis(r)).toEqual({
      return_ratio: 0,
      max_drawdown: 0,
      volatility: 0,
      sharpe_ratio: null,
      win_rate: null,
      profit_loss_ratio: null,
      calmar_ratio: null,
    });
  });

  it('a one-day window has no volatility or Sharpe (N < 2)', () => {
    const k = computeKpis(simulate({ dates: ['d'], open: [1], close: [1], buy: [false], sell: [false] }));
    expect(k.volatility).toBeNull();
    expect(k.sharpe_ratio).toBeNull();
  });
});

describe('properties', () => {
  it('a strategy that never trades has return 0 and drawdown 0, whatever the prices', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const n = 5 + seed * 7;
      const open = Array.from({ length: n }, (_, i) => 5 + ((seed * 37 + i * 11) % 23));
      const close = open.map((o, i) => o * (1 + (((seed + i) % 7) - 3) / 50));
      // sell signals alone, or buys that cannot afford a lot, never trade
      const sells = simulate({ dates: days(n), open, close, buy: open.map(() => false), sell: open.map(() => true) });
      const poor = simulate({ dates: days(n), open, close, buy: open.map(() => true), sell: open.map(() => false), capital: 400 });
      for (const r of [sells, poor]) {
        expect(r.trades).toEqual([]);
        const k = computeKpis(r);
        expect([k.return_ratio, k.max_drawdown]).toEqual([0, 0]);
      }
    }
  });

  it('changing bars after day t never changes the decisions up to t', () => {
    const n = 60;
    const open = Array.from({ length: n }, (_, i) => 10 + Math.sin(i / 3));
    const close = open.map((o, i) => o + Math.cos(i / 2) * 0.3);
    const buy = open.map((_, i) => i % 7 === 1);
    const sell = open.map((_, i) => i % 5 === 3);
    const base = simulate({ dates: days(n), open, close, buy, sell });
    for (const t of [10, 25, 40]) {
      const open2 = open.map((o, i) => (i > t ? o * 3 : o));
      const close2 = close.map((c, i) => (i > t ? c / 2 : c));
      const changed = simulate({ dates: days(n), open: open2, close: close2, buy, sell });
      expect(changed.equity.slice(0, t + 2)).toEqual(base.equity.slice(0, t + 2));
      const before = (tr: typeof base.trades) => tr.filter((x) => Number(x.sell_date.slice(1)) <= t);
      expect(before(changed.trades)).toEqual(before(base.trades));
    }
  });
});
