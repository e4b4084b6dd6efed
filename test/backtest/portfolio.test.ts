// The portfolio engine against an independent calculation written from the
// rules (equal or given weights, the first trading day of each month, whole
// lots of the equity at the open, sales before buys, the A-share fees of each
// order's date), every rebalance checked; and by hand: T+1 on a stopped
// position with its cash spent the same day on another member.
import { describe, expect, it } from 'vitest';
import { dayOfIso } from '../../src/backtest/days.js';
import { chinaModel } from '../../src/backtest/execution-model.js';
import { simulatePortfolio, type PortfolioMember } from '../../src/backtest/portfolio.js';

const round2 = (x: number) => Math.round(x * 100 + 1e-7) / 100;
// the public rates: commission 0.025% (at least 5 yuan), transfer fee 0.002% then 0.001% from 2022-04-29, stamp duty on
// sales 0.1% until 2023-08-27 and 0.05% from 2023-08-28
function fees(value: number, date: string, sale: boolean): number {
  const commission = Math.max(round2(value * 0.00025), 5);
  const transfer = round2(value * (date >= '2022-04-29' ? 0.00001 : 0.00002));
  const stamp = sale ? round2(value * (date >= '2023-08-28' ? 0.0005 : 0.001)) : 0;
  return commission + transfer + stamp;
}

interface Bar {
  date: string;
  open: number[];
  close: number[];
}

/** The reference: a plain loop over days that all members trade, no exits, no limits hit. */
function reference(bars: Bar[], weights: number[], capital: number) {
  const k = weights.length;
  const w = weights.map((x) => x / weights.reduce((a, b) => a + b, 0));
  let cash = capital;
  const held = new Array<number>(k).fill(0);
  const rebalances: { date: string; equityAtOpen: number; targets: number[]; holdings: number[]; cash: number }[] = [];
  const equity = [capital];
  bars.forEach((bar, t) => {
    const last = t === bars.length - 1;
    if (t === 0 || bar.date.slice(0, 7) !== bars[t - 1].date.slice(0, 7)) {
      const e = cash + held.reduce((s, q, i) => s + q * bar.open[i], 0);
      const targets = w.map((wi, i) => Math.floor((e * wi) / (bar.open[i] * 100)) * 100);
      if (!last) {
        for (let i = 0; i < k; i++)
          if (held[i] > targets[i]) {
            const v = (held[i] - targets[i]) * bar.open[i];
            cash += v - fees(v, bar.date, true);
            held[i] = targets[i];
          }
        for (let i = 0; i < k; i++)
          if (held[i] < targets[i]) {
            const want = (targets[i] - held[i]) / 100;
            let lots = want;
            while (lots > 0 && lots * 100 * bar.open[i] + fees(lots * 100 * bar.open[i], bar.date, false) > cash) lots--;
            const v = lots * 100 * bar.open[i];
            if (lots > 0) cash -= v + fees(v, bar.date, false);
            held[i] += lots * 100;
            // what the cash could not pay is dropped from the target
            if (lots < want) targets[i] = held[i];
          }
      }
      rebalances.push({ date: bar.date, equityAtOpen: e, targets: [...targets], holdings: [...held], cash });
    }
    if (last)
      for (let i = 0; i < k; i++) {
        const v = held[i] * bar.close[i];
        if (held[i]) cash += v - fees(v, bar.date, true);
        held[i] = 0;
      }
    equity.push(cash + held.reduce((s, q, i) => s + q * bar.close[i], 0));
  });
  return { equity, rebalances };
}

function weekdays(from: string, count: number): string[] {
  const out: string[] = [];
  for (let d = new Date(`${from}T00:00:00Z`); out.length < count; d.setUTCDate(d.getUTCDate() + 1))
    if (d.getUTCDay() % 6 !== 0) out.push(d.toISOString().slice(0, 10));
  return out;
}

/** Seeded bars of k members, moves under 4% a day (no price limit binds). */
function market(seed: number, k: number, dates: string[]): Bar[] {
  let s = seed;
  const rand = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const price = Array.from({ length: k }, (_, i) => 5 + 7 * i + rand() * 3);
  return dates.map((date) => {
    const open = price.map((p) => round2(p * (1 + (rand() - 0.5) * 0.04)));
    const close = open.map((o) => round2(o * (1 + (rand() - 0.5) * 0.04)));
    close.forEach((c, i) => (price[i] = c));
    return { date, open, close };
  });
}

function members(bars: Bar[], k: number): PortfolioMember[] {
  return Array.from({ length: k }, (_, i) => ({
    code: `60000${i}`,
    name: `Member ${i}`,
    days: Int32Array.from(bars, (b) => dayOfIso(b.date)),
    open: bars.map((b) => b.open[i]),
    close: bars.map((b) => b.close[i]),
  }));
}

describe('a monthly-rebalanced portfolio with A-share costs', () => {
  for (const [label, weights, from] of [
    ['equal weights across the 2023-08-28 stamp duty cut', [1, 1, 1], '2023-06-01'],
    ['given weights 50/30/20', [0.5, 0.3, 0.2], '2022-01-03'],
  ] as const) {
    it(`${label}: every rebalance and every close match the independent calculation`, () => {
      const bars = market(label.length, 3, weekdays(from, 130));
      const expected = reference(bars, [...weights], 1_000_000);
      const r = simulatePortfolio({
        members: members(bars, 3),
        weights: [...weights],
        rebalance: 'monthly',
        invest: 1,
        capital: 1_000_000,
        model: chinaModel(),
        slippageBps: 0,
      });
      expect(r.rebalances.length).toBe(expected.rebalances.length);
      expect(r.rebalances.length).toBeGreaterThanOrEqual(6);
      r.rebalances.forEach((got, j) => {
        const want = expected.rebalances[j];
        expect(got.date).toBe(want.date);
        expect(got.equityAtOpen).toBeCloseTo(want.equityAtOpen, 6);
        expect(got.targets).toEqual(want.targets);
        expect(got.holdings).toEqual(want.holdings);
        expect(got.cash).toBeCloseTo(want.cash, 6);
      });
      expect(r.equity.length).toBe(expected.equity.length);
      r.equity.forEach((e, t) => expect(e).toBeCloseTo(expected.equity[t], 6));
      // the fees were paid: the run ends below the same run without them
      const free = simulatePortfolio({
        members: members(bars, 3),
        weights: [...weights],
        rebalance: 'monthly',
        invest: 1,
        capital: 1_000_000,
        slippageBps: 0,
      });
      expect(r.equity.at(-1)!).toBeLessThan(free.equity.at(-1)!);
    });
  }

  it('a quarterly calendar rebalances on the first trading day of each quarter only', () => {
    const bars = market(7, 2, weekdays('2024-01-02', 200));
    const r = simulatePortfolio({
      members: members(bars, 2),
      weights: [1, 1],
      rebalance: 'quarterly',
      invest: 1,
      capital: 1_000_000,
      slippageBps: 0,
    });
    expect(r.rebalances.map((x) => x.date)).toEqual(['2024-01-02', '2024-04-01', '2024-07-01', '2024-10-01']);
  });
});

describe('T+1 and same-day cash, by hand', () => {
  it('a stop touched on the day of the buy sells the next day, and that sale pays for another buy the same morning', () => {
    // 20,000 yuan, 15,000 a member. 03-04: A (signal) buys 1,500 shares at 10.00, cash 5,000; its low 8.50 is below
    // the 10% stop (9.00) but T+1 holds the shares. 03-05: A opens 9.50 and trades to 8.90: the stop sells 1,500 at
    // 9.00 = 13,500 (cash 18,500); B's buy signal that day buys 15,000 / 5.00 = 3,000 shares = 15,000 yuan, more
    // than the 5,000 held before the sale. 03-06: the last close sells B at 5.20.
    const days = Int32Array.from(['2024-03-04', '2024-03-05', '2024-03-06'], dayOfIso);
    const r = simulatePortfolio({
      members: [
        {
          code: '600000',
          name: 'A',
          days,
          open: [10, 9.5, 9.2],
          close: [9.6, 9.1, 9.2],
          high: [10, 9.6, 9.3],
          low: [8.5, 8.9, 9],
          buy: [true, false, false],
          sell: [false, false, false],
        },
        {
          code: '600001',
          name: 'B',
          days,
          open: [5, 5, 5.1],
          close: [5, 5.1, 5.2],
          high: [5, 5.1, 5.2],
          low: [5, 5, 5.1],
          buy: [false, true, false],
          sell: [false, false, false],
        },
      ],
      weights: [1, 1],
      rebalance: 'none',
      invest: 1,
      amount: 15_000,
      capital: 20_000,
      slippageBps: 0,
      exits: { stopLoss: 0.1, fill: 'intrabar' },
    });
    expect(r.trades.map((t) => [t.buy_date, t.sell_date, t.shares, t.sell_price, t.exit])).toEqual([
      ['2024-03-04', '2024-03-05', 1_500, 9, 'stop'],
      ['2024-03-05', '2024-03-06', 3_000, 5.2, 'end'],
    ]);
    // closes: 5,000 + 1,500 x 9.60; then 18,500 - 15,000 + 3,000 x 5.10; then 3,500 + 3,000 x 5.20
    expect(r.equity).toEqual([20_000, 5_000 + 1_500 * 9.6, 3_500 + 3_000 * 5.1, 3_500 + 3_000 * 5.2]);
  });
});
