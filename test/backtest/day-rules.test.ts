// Exits and the A-share day rules against runs computed by hand: a stop hit
// intrabar (and one gapped through at the open), a stop touched on the day of
// the buy held by T+1, a limit-up day that blocks a buy but not a sale, a
// limit-down close that holds a sale, a half-filled order carried to the next
// day; and without any rule the engine gives the protocol's numbers.
import { describe, expect, it } from 'vitest';
import { dayOfIso } from '../../src/backtest/days.js';
import { simulateWithRules, type DayRules, type ExitRules } from '../../src/backtest/day-rules.js';
import { chinaModel } from '../../src/backtest/execution-model.js';
import { simulateWithCosts } from '../../src/backtest/simulate-costs.js';
import { simulate } from '../../src/backtest/simulator.js';

const DATES = ['2024-03-04', '2024-03-05', '2024-03-06', '2024-03-07', '2024-03-08', '2024-03-11'];

function run(o: {
  open: number[];
  close: number[];
  high?: number[];
  low?: number[];
  volume?: number[];
  buy: number[];
  sell?: number[];
  capital?: number;
  exits?: ExitRules;
  dayRules?: DayRules;
}) {
  const dates = DATES.slice(0, o.open.length);
  return simulateWithRules({
    dates,
    days: Int32Array.from(dates, dayOfIso),
    open: o.open,
    close: o.close,
    high: o.high ?? o.open.map((x, i) => Math.max(x, o.close[i])),
    low: o.low ?? o.open.map((x, i) => Math.min(x, o.close[i])),
    volume: o.volume,
    buy: o.buy.map(Boolean),
    sell: (o.sell ?? o.buy.map(() => 0)).map(Boolean),
    capital: o.capital ?? 10_000,
    code: '600000',
    name: 'Bank',
    slippageBps: 0,
    exits: o.exits,
    dayRules: o.dayRules,
  });
}

describe('exits, by hand', () => {
  it('a stop-loss hit intrabar sells at the level, not at the low', () => {
    // 10,000 yuan buys 1,000 shares at 10.00; a 10% stop is at 9.00; the next day opens 9.60 and trades down to 8.70
    const r = run({
      open: [10, 9.6, 9.1, 9.2],
      close: [10, 9.2, 9.1, 9.3],
      low: [9.9, 8.7, 9.0, 9.1],
      buy: [1, 0, 0, 0],
      exits: { stopLoss: 0.1, fill: 'intrabar' },
    });
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({ sell_date: '2024-03-05', sell_price: 9, shares: 1000, exit: 'stop' });
    expect(r.trades[0].pnl).toBeCloseTo(-1000, 9);
    // flat from the stop on: the equity stays at the 9,000 it sold for
    expect(r.equity).toEqual([10_000, 10_000, 9_000, 9_000, 9_000]);
    expect(r.rules).toMatchObject({ stopLosses: 1, gapFills: 0 });
  });

  it('a day that opens through the stop fills at the open (the gap), and the next-open reading sells a day later', () => {
    const gap = run({ open: [10, 8.5, 8.8], close: [10, 8.9, 9], buy: [1, 0, 0], exits: { stopLoss: 0.1, fill: 'intrabar' } });
    expect(gap.trades[0]).toMatchObject({ sell_date: '2024-03-05', sell_price: 8.5, exit: 'stop' });
    expect(gap.rules.gapFills).toBe(1);
    // next_open: the close of 03-05 (8.90) is below 9.00, so the sale is at the open of 03-06 (8.80)
    const next = run({ open: [10, 8.5, 8.8, 9], close: [10, 8.9, 9, 9], buy: [1, 0, 0, 0], exits: { stopLoss: 0.1, fill: 'next_open' } });
    expect(next.trades[0]).toMatchObject({ sell_date: '2024-03-06', sell_price: 8.8, exit: 'stop' });
  });

  it('T+1: a stop touched on the day of the buy does not sell that day', () => {
    // bought at 10.00 on 03-04, whose low is 8.50: the shares cannot be sold that day; 03-05 stays above 9.00
    const r = run({
      open: [10, 9.5, 9.8],
      close: [9.4, 9.6, 9.9],
      low: [8.5, 9.2, 9.5],
      buy: [1, 0, 0],
      exits: { stopLoss: 0.1, fill: 'intrabar' },
    });
    expect(r.trades[0]).toMatchObject({ sell_date: '2024-03-06', exit: 'end', forced: true });
    expect(r.rules).toMatchObject({ stopLosses: 0, heldByT1: 1 });
  });

  it('a trailing stop follows the highest close and a take-profit sells at its level', () => {
    // entry 10.00; closes 11, 12: the peak 12.00 puts a 10% trail at 10.80; 03-07's low 10.50 sells at 10.80
    const trail = run({
      open: [10, 10.5, 11.5, 11.9, 10.6],
      close: [10, 11, 12, 11.2, 10.7],
      low: [10, 10.4, 11.4, 10.5, 10.5],
      buy: [1, 0, 0, 0, 0],
      exits: { trailingStop: 0.1, fill: 'intrabar' },
    });
    expect(trail.trades[0]).toMatchObject({ sell_date: '2024-03-07', exit: 'trail' });
    expect(trail.trades[0].sell_price).toBeCloseTo(10.8, 9);
    const take = run({
      open: [10, 10.5, 11],
      close: [10, 11, 11],
      high: [10, 11.3, 11],
      buy: [1, 0, 0],
      exits: { takeProfit: 0.12, fill: 'intrabar' },
    });
    expect(take.trades[0]).toMatchObject({ sell_date: '2024-03-05', exit: 'take' });
    expect(take.trades[0].sell_price).toBeCloseTo(11.2, 9);
  });
});

describe('day rules, by hand', () => {
  it('a limit-up open blocks a buy but a limit-up close does not block a sale; a limit-down close holds a sale', () => {
    // 600000 is a main-board share: +-10% of the previous close. 03-05 opens at 11.00 = 10.00 x 1.1: the buy waits.
    // 03-06 opens at 11.50 (limit 12.10): it fills, 800 shares (10,000 / 1,150 = 8 lots). 03-07 closes at the
    // limit-up 12.65 with a sell signal: the sale fills at 12.65.
    const r = run({
      open: [10, 11, 11.5, 12],
      close: [10, 11, 11.5, 12.65],
      buy: [0, 1, 0, 0],
      sell: [0, 0, 0, 1],
      dayRules: { limits: true },
    });
    expect(r.trades).toEqual([
      expect.objectContaining({
        buy_date: '2024-03-06',
        buy_price: 11.5,
        sell_date: '2024-03-07',
        sell_price: 12.65,
        shares: 800,
        exit: 'signal',
      }),
    ]);
    expect(r.rules.buysBlockedByLimit).toBe(1);
    // a sale on 03-06 (not the last day) at a limit-up close fills the same day
    const up = run({
      open: [10, 10.2, 10.5, 11],
      close: [10, 10.5, 11.55, 11],
      buy: [1, 0, 0, 0],
      sell: [0, 0, 1, 0],
      dayRules: { limits: true },
    });
    expect(up.trades[0]).toMatchObject({ sell_date: '2024-03-06', sell_price: 11.55, exit: 'signal' });
    // a sell signal on a limit-down close (10.50 x 0.9 = 9.45) waits for the next close
    const down = run({
      open: [10, 10.2, 10, 9.6, 9.8],
      close: [10, 10.5, 9.45, 9.7, 9.9],
      buy: [1, 0, 0, 0, 0],
      sell: [0, 0, 1, 0, 0],
      dayRules: { limits: true },
    });
    expect(down.trades[0]).toMatchObject({ sell_date: '2024-03-07', sell_price: 9.7, exit: 'signal' });
    expect(down.rules.salesBlockedByLimit).toBe(1);
  });

  it('a volume cap fills half the order and carries the rest to the next open', () => {
    // 10,000 yuan at 10.00 wants 1,000 shares; 10% of 5,000 traded is 500: half today, the rest at 03-05's 9.80
    const r = run({
      open: [10, 9.8, 10.4],
      close: [10.1, 10.3, 10.5],
      volume: [5_000, 20_000, 20_000],
      buy: [1, 0, 0],
      dayRules: { volumeCap: 0.1 },
    });
    expect(r.trades[0].shares).toBe(1_000);
    expect(r.trades[0].buy_price).toBeCloseTo((500 * 10 + 500 * 9.8) / 1_000, 9);
    // day 1: 500 shares and 5,000 cash; day 2: 1,000 shares, cash 10,000 - 5,000 - 4,900 = 100
    expect(r.equity[1]).toBeCloseTo(5_000 + 500 * 10.1, 9);
    expect(r.equity[2]).toBeCloseTo(100 + 1_000 * 10.3, 9);
    expect(r.rules).toMatchObject({ partialFills: 1, daysCarried: 1 });
  });
});

describe('without any rule', () => {
  // a seeded walk: enough days and signals for many trades, limit days included
  function walk(seed: number, n: number) {
    let s = seed;
    const rand = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const open: number[] = [];
    const close: number[] = [];
    let p = 10;
    for (let i = 0; i < n; i++) {
      const o = Math.round(p * (1 + (rand() - 0.5) * 0.08) * 100) / 100;
      const c = Math.round(p * (1 + (rand() - 0.5) * 0.22) * 100) / 100;
      open.push(o);
      close.push(Math.max(0.5, c));
      p = close[i];
    }
    const dates = Array.from({ length: n }, (_, i) => new Date(Date.UTC(2023, 0, 2 + i)).toISOString().slice(0, 10));
    return { dates, open, close, buy: open.map(() => rand() < 0.3), sell: open.map(() => rand() < 0.3) };
  }

  it('gives the protocol engine and the costs engine their numbers, to the bit', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const w = walk(seed, 300);
      const days = Int32Array.from(w.dates, dayOfIso);
      const base = { ...w, days, code: '600000', name: 'Bank', capital: 1_000_000 };
      const none = simulateWithRules({ ...base, slippageBps: 0, dayRules: {} });
      const protocol = simulate(w);
      expect(none.equity).toEqual(protocol.equity);
      expect(none.trades.map(({ exit: _, ...t }) => t)).toEqual(protocol.trades);
      const china = simulateWithRules({ ...base, model: chinaModel(), slippageBps: 5, dayRules: {} });
      const costed = simulateWithCosts({ ...base, model: chinaModel(), slippageBps: 5 });
      expect(china.equity).toEqual(costed.equity);
      expect(china.trades.map(({ exit: _, ...t }) => t)).toEqual(costed.trades);
      expect(china.execution).toEqual(costed.execution);
    }
  });
});
