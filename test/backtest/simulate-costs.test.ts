// costs: china against trades computed by hand: the commission minimum, the
// stamp duty's change on 2023-08-28, the transfer fee, slippage, a limit-up
// open skipped and filled the next allowed day, a limit-down close, ChiNext's
// +-20% from its reform date, an ST name's 5%, a suspension (no bar), and the
// protocol model unchanged to the bit.
import { describe, expect, it } from 'vitest';
import { dayOfIso } from '../../src/backtest/days.js';
import { chinaModel } from '../../src/backtest/execution-model.js';
import { computeKpis } from '../../src/backtest/kpis.js';
import { simulateCandidate } from '../../src/backtest/run-spec.js';
import { simulateWithCosts } from '../../src/backtest/simulate-costs.js';
import { simulate } from '../../src/backtest/simulator.js';
import type { StrategySpec } from '../../src/backtest/spec.js';

function run(o: {
  dates: string[];
  open: number[];
  close: number[];
  buy: number[];
  sell: number[];
  capital?: number;
  code?: string;
  name?: string;
  slippageBps?: number;
}) {
  return simulateWithCosts({
    dates: o.dates,
    days: Int32Array.from(o.dates, dayOfIso),
    open: o.open,
    close: o.close,
    buy: o.buy.map(Boolean),
    sell: o.sell.map(Boolean),
    capital: o.capital ?? 1_500,
    code: o.code ?? '600000',
    name: o.name ?? 'Bank',
    model: chinaModel(),
    slippageBps: o.slippageBps ?? 0,
  });
}

describe('costs: china, by hand', () => {
  it('one lot: the 5 yuan commission minimum on both sides, the transfer fee, and the stamp duty of the sale date', () => {
    // 100 shares at 10.00: 1,000 yuan; commission 0.25 -> 5 (the minimum); transfer 0.001% -> 0.01
    // sold at 11.00 on 2023-09-01: 1,100 yuan; commission 5; transfer 0.011 -> 0.01; stamp 0.05% -> 0.55
    const r = run({
      dates: ['2023-08-30', '2023-08-31', '2023-09-01'],
      open: [10, 10.5, 11],
      close: [10.2, 10.6, 11],
      buy: [1, 0, 0],
      sell: [0, 0, 1],
    });
    expect(r.trades).toEqual([
      {
        buy_date: '2023-08-30',
        buy_price: 10,
        sell_date: '2023-09-01',
        sell_price: 11,
        shares: 100,
        pnl: 1100 - 5.56 - 1005.01,
        forced: false,
      },
    ]);
    expect(r.execution).toMatchObject({
      commission: 10,
      transferFee: 0.02,
      stampDuty: 0.55,
      slippage: 0,
      total: 10.57,
      orders: 2,
      buysWaited: 0,
      sellsWaited: 0,
    });
    // cash after: 1,500 - 1,005.01 + 1,100 - 5.56
    expect(r.equity.at(-1)).toBeCloseTo(1500 - 1005.01 + 1094.44, 6);
  });

  it('the stamp duty halves on 2023-08-28: a sale on the 25th pays 0.1%, one on the 28th 0.05%', () => {
    const sale = (d2: string) =>
      run({
        dates: ['2023-08-23', '2023-08-24', d2],
        open: [10, 10, 20],
        close: [10, 10, 20],
        buy: [1, 0, 0],
        sell: [0, 0, 1],
        capital: 1_100,
      });
    expect(sale('2023-08-25').execution.stampDuty).toBe(2); // 2,000 x 0.1%
    expect(sale('2023-08-28').execution.stampDuty).toBe(1); // 2,000 x 0.05%
  });

  it("the lots bought leave room for the buy's own fees", () => {
    // 10,005 yuan buys 1,000 shares at 10 (10,000) only if the fees (5 + 0.10) fit: 10,005.10 > 10,005, so 900 shares
    const r = run({ dates: ['2023-09-04', '2023-09-05'], open: [10, 10], close: [10, 10], buy: [1, 0], sell: [0, 0], capital: 10_005 });
    expect(r.trades[0].shares).toBe(900);
    const exact = run({
      dates: ['2023-09-04', '2023-09-05'],
      open: [10, 10],
      close: [10, 10],
      buy: [1, 0],
      sell: [0, 0],
      capital: 10_005.1,
    });
    expect(exact.trades[0].shares).toBe(1000);
  });

  it('slippage moves the buy above the open and the sale below the close, and is counted apart', () => {
    // 10 bps: bought at 10.01 (100 shares: 1,001), sold at 10.989 (1,098.90)
    const r = run({ dates: ['2023-09-04', '2023-09-05'], open: [10, 10], close: [10, 11], buy: [1, 0], sell: [0, 1], slippageBps: 10 });
    expect(r.trades[0].buy_price).toBeCloseTo(10.01, 10);
    expect(r.trades[0].sell_price).toBeCloseTo(10.989, 10);
    expect(r.execution.slippage).toBe(2.1); // 100 x 10 x 0.001 + 100 x 11 x 0.001
    expect(r.execution.total).toBe(fenSum([10, 0.02, 0.55, 2.1]));
  });

  it('a limit-up open does not fill: the order waits and fills at the next open that allows it, signal or not', () => {
    // previous close 10.00, main board +-10%: limit-up 11.00. Day 1 opens at 11.00 (blocked); day 2 opens 11.50 under 12.10
    const r = run({
      dates: ['2023-09-04', '2023-09-05', '2023-09-06', '2023-09-07'],
      open: [9.9, 11, 11.5, 11.6],
      close: [10, 11, 11.6, 11.7],
      buy: [0, 1, 0, 0],
      sell: [0, 0, 0, 0],
      capital: 2_000,
    });
    expect(r.trades[0]).toMatchObject({ buy_date: '2023-09-06', buy_price: 11.5, shares: 100, forced: true });
    expect(r.execution).toMatchObject({ buysWaited: 1, daysWaited: 1, unfilledBuy: false });
  });

  it('a limit-down close does not fill a sale: it waits for the next close above the limit', () => {
    // bought day 0 at 10; day 1 closes 9.00 = limit-down of 10.00 (blocked); day 2 closes 8.50 above 8.10: sold
    const r = run({
      dates: ['2023-09-04', '2023-09-05', '2023-09-06', '2023-09-07'],
      open: [10, 9.5, 8.8, 8.6],
      close: [10, 9, 8.5, 8.6],
      buy: [1, 0, 0, 0],
      sell: [0, 1, 0, 0],
    });
    expect(r.trades[0]).toMatchObject({ sell_date: '2023-09-06', sell_price: 8.5, forced: false });
    expect(r.execution).toMatchObject({ sellsWaited: 1, daysWaited: 1 });
  });

  it('a suspension is no day: the waiting sale fills at the next bar, against the last traded close', () => {
    // no bars 09-06..09-08; the limit of 09-11 is from 09-05's close (9.00): limit-down 8.10, close 8.20 fills
    const r = run({
      dates: ['2023-09-04', '2023-09-05', '2023-09-11', '2023-09-12'],
      open: [10, 9.5, 8.3, 8.2],
      close: [10, 9, 8.2, 8.3],
      buy: [1, 0, 0, 0],
      sell: [0, 1, 0, 0],
    });
    expect(r.trades[0]).toMatchObject({ sell_date: '2023-09-11', sell_price: 8.2 });
  });

  it('ChiNext is +-10% before 2020-08-24 and +-20% from then; a main-board ST name is +-5%', () => {
    // a buy wanted on the second day, whose open is `open1` against a previous close of 10.00
    const wanted = (dates: string[], open1: number, code: string, name = 'Co') =>
      run({ dates, open: [10, open1, open1], close: [10, open1, open1], buy: [0, 1, 0], sell: [0, 0, 0], capital: 2_000, code, name })
        .execution;
    const before = ['2020-08-19', '2020-08-20', '2020-08-21'];
    const after = ['2020-08-24', '2020-08-25', '2020-08-26'];
    // 11.00 is the limit-up before the reform, well inside it after; 12.00 is the limit-up after
    expect(wanted(before, 11, '300750')).toMatchObject({ buysWaited: 1, board: 'ChiNext' });
    expect(wanted(after, 11, '300750')).toMatchObject({ buysWaited: 0, board: 'ChiNext' });
    expect(wanted(after, 12, '301001').buysWaited).toBe(1);
    // the main board is +-10% throughout; an ST name +-5% (limit-up 10.50)
    expect(wanted(after, 11, '600519').buysWaited).toBe(1);
    expect(wanted(after, 10.5, '600519', '*ST Foo')).toMatchObject({ buysWaited: 1, board: 'main board (ST)' });
    expect(wanted(after, 10.5, '600519', 'Foo').buysWaited).toBe(0);
    // STAR is +-20% (688xxx)
    expect(wanted(after, 11.9, '688981')).toMatchObject({ buysWaited: 0, board: 'STAR Market' });
  });

  it('the forced sale at the last close happens even at the limit-down price, and says so', () => {
    const r = run({
      dates: ['2023-09-04', '2023-09-05', '2023-09-06'],
      open: [10, 10, 9.5],
      close: [10, 10, 9],
      buy: [1, 0, 0],
      sell: [0, 0, 0],
    });
    expect(r.trades[0]).toMatchObject({ forced: true, sell_price: 9 });
    expect(r.execution.forcedAtLimitDown).toBe(true);
  });
});

const fenSum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;

describe('costs: none stays the protocol, to the bit', () => {
  it('simulateCandidate without costs equals simulate() on random bars and signals', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let k = 0; k < 50; k++) {
      const n = 30 + Math.floor(rand() * 200);
      const dates = Array.from({ length: n }, (_, i) => new Date(Date.UTC(2022, 0, 3 + i)).toISOString().slice(0, 10));
      let p = 10;
      const open: number[] = [];
      const close: number[] = [];
      for (let i = 0; i < n; i++) {
        open.push(Math.round(p * (1 + (rand() - 0.5) * 0.04) * 100) / 100);
        p = Math.round(p * (1 + (rand() - 0.5) * 0.06) * 100) / 100;
        close.push(p);
      }
      const spec = {
        capital: 1_000_000,
        sizing: 'lots',
        costs: 'none',
        strategies: [
          {
            name: 'A',
            buy: [{ type: 'expression', code: 'OPEN > DELAY(CLOSE,1)' }],
            sell: [{ type: 'expression', code: 'OPEN < DELAY(CLOSE,1)' }],
          },
        ],
      } as unknown as StrategySpec;
      const viaSpec = simulateCandidate(
        spec,
        { dates, bars: { OPEN: Float64Array.from(open), CLOSE: Float64Array.from(close) } as never },
        spec.strategies[0],
      );
      const buy = open.map((o, i) => i > 0 && o > close[i - 1]);
      const sell = open.map((o, i) => i > 0 && o < close[i - 1]);
      const direct = simulate({ dates, open, close, buy, sell, capital: 1_000_000, sizing: 'lots' });
      expect(viaSpec).toEqual(direct);
      expect(computeKpis(viaSpec)).toEqual(computeKpis(direct));
    }
  });
});
