// The market beside a strategy: the equal-weight index by hand, and beta,
// alpha, excess return and the information ratio on constructed returns.
import { describe, expect, it } from 'vitest';
import type { MarketTable } from '../../src/backtest/bar-cache.js';
import { equalWeightIndex, marketReturnsOver, versusMarket } from '../../src/backtest/benchmark.js';
import { dayOfIso } from '../../src/backtest/days.js';

function table(rows: [string, string, number][]): MarketTable {
  const codes = [...new Set(rows.map((r) => r[0]))];
  const starts = new Int32Array(codes.length + 1);
  codes.forEach((c, i) => (starts[i] = rows.findIndex((r) => r[0] === c)));
  starts[codes.length] = rows.length;
  return {
    exchange: 'test',
    version: '1',
    rows: rows.length,
    codes,
    index: new Map(codes.map((c, i) => [c, i])),
    starts,
    days: Int32Array.from(rows, (r) => dayOfIso(r[1])),
    columns: new Map([['CLOSE', Float64Array.from(rows, (r) => r[2])]]),
  };
}

describe('the equal-weight market index', () => {
  it('averages the close-to-close returns of the tickers that traded each day', () => {
    const t = table([
      ['A', '2023-01-03', 10],
      ['A', '2023-01-04', 11],
      ['A', '2023-01-05', 11],
      // B is suspended on the 4th: its return of the 5th is from the 3rd's close
      ['B', '2023-01-03', 20],
      ['B', '2023-01-05', 18],
    ]);
    const index = equalWeightIndex([t], '2023-01-04', '2023-01-05');
    expect(index.members).toBe(2);
    const r = [...index.returns];
    expect(r.map(([day]) => day)).toEqual(['2023-01-04', '2023-01-05']);
    expect(r[0][1]).toBeCloseTo(0.1, 12);
    expect(r[1][1]).toBeCloseTo((0 + -0.1) / 2, 12);
    // a day before the window is not in it
    expect(equalWeightIndex([t], '2023-01-05', '2023-01-05').returns.has('2023-01-04')).toBe(false);
  });
});

describe('the strategy against the market', () => {
  const dates = ['2023-01-03', '2023-01-04', '2023-01-05', '2023-01-06'];
  const market = {
    returns: new Map([
      ['2023-01-03', 0.01],
      ['2023-01-04', -0.02],
      ['2023-01-05', 0.03],
      ['2023-01-06', 0],
    ]),
    members: 10,
  };
  const equityOf = (r: number[]) => r.reduce((e, x) => [...e, e.at(-1)! * (1 + x)], [1_000_000]);

  it('a strategy that is the market: beta 1, no alpha, no excess return, no information ratio (no tracking error)', () => {
    const vs = versusMarket(equityOf([0.01, -0.02, 0.03, 0]), dates, market);
    expect(vs.beta).toBeCloseTo(1, 12);
    expect(vs.alpha).toBeCloseTo(0, 12);
    expect(vs.excessReturn).toBeCloseTo(0, 12);
    expect(vs.informationRatio).toBeNull();
    expect(vs.marketReturn).toBeCloseTo(1.01 * 0.98 * 1.03 - 1, 12);
    expect(vs.equity.at(-1)).toBeCloseTo(1_000_000 * 1.01 * 0.98 * 1.03, 6);
  });

  it('twice the market plus 0.1% a day: beta 2, alpha over the risk-free rate, the information ratio of the daily excess returns', () => {
    const r = [0.01, -0.02, 0.03, 0].map((x) => 2 * x + 0.001);
    const vs = versusMarket(equityOf(r), dates, market);
    expect(vs.beta).toBeCloseTo(2, 12);
    // Jensen's alpha with the Sharpe ratio's rf = 0.01% a day: ((ms - rf) - 2 (mm - rf)) x 252 = (0.001 + rf) x 252
    expect(vs.alpha).toBeCloseTo((0.001 + 0.0001) * 252, 10);
    const diff = r.map((x, i) => x - [0.01, -0.02, 0.03, 0][i]);
    const mean = diff.reduce((a, b) => a + b, 0) / 4;
    const sd = Math.sqrt(diff.reduce((a, b) => a + (b - mean) ** 2, 0) / 3);
    expect(vs.informationRatio).toBeCloseTo((mean / sd) * Math.sqrt(252), 10);
  });

  it('a flat market has no beta or alpha', () => {
    const flat = { returns: new Map(dates.map((x) => [x, 0])), members: 3 };
    expect(versusMarket(equityOf([0.01, 0.02, 0, 0]), dates, flat)).toMatchObject({ beta: null, alpha: null, marketReturn: 0 });
  });
});

describe('the market over a suspension of the ticker', () => {
  // the market moves +1%, -2%, +0.5%, -1% on four days; the ticker trades on the first and the last only
  const market = {
    returns: new Map([
      ['2023-03-01', 0.01],
      ['2023-03-02', -0.02],
      ['2023-03-03', 0.005],
      ['2023-03-06', -0.01],
    ]),
    members: 5,
  };

  it("the market's moves of the suspended days compound into the next bar's: 0.98 x 1.005 x 0.99 - 1, not -1%", () => {
    const rm = marketReturnsOver(['2023-03-01', '2023-03-06'], market);
    expect(rm[0]).toBe(0.01);
    // by hand: 0.98 * 1.005 = 0.9849; * 0.99 = 0.975051; - 1 = -0.024949
    expect(rm[1]).toBeCloseTo(-0.024949, 12);
    const vs = versusMarket([1_000_000, 1_000_000, 1_000_000], ['2023-03-01', '2023-03-06'], market);
    // the market over the window: 1.01 x 0.975051 - 1 = -0.01519849 (all four days), not 1.01 x 0.99 - 1
    expect(vs.marketReturn).toBeCloseTo(-0.01519849, 12);
    expect(vs.excessReturn).toBeCloseTo(0.01519849, 12);
  });

  it('market days before the first bar are not counted; a day the market did not trade adds nothing', () => {
    expect([...marketReturnsOver(['2023-03-02', '2023-03-03'], market)]).toEqual([-0.02, 0.005]);
    expect([...marketReturnsOver(['2023-03-04', '2023-03-05'], market)]).toEqual([0, 0]);
  });
});
