// A run's tearsheet: monthly returns, a rolling Sharpe, the drawdown periods,
// exposure and turnover, and the Monte Carlo of its trades. Computed from the
// equity curve (the day-0 anchor, then each close), the trades and, for a
// portfolio, its daily exposure and the value it traded; numbers only, the
// answer's words are in agents/backtest/tearsheet-part.ts.
import { reshuffleTrades, tradeReturns, type MonteCarlo } from './monte-carlo.js';
import type { Trade } from './simulator.js';

/** The rolling Sharpe's window: a quarter of trading days, with the KPI's risk-free rate and annualisation. */
export const ROLLING_SHARPE_DAYS = 63;
const RISK_FREE_DAILY = 0.0001;
const DAYS_PER_YEAR = 252;

interface DrawdownPeriod {
  /** the last peak before the fall, the lowest close, and the first close back at the peak (null: not recovered) */
  start: string;
  trough: string;
  recovery: string | null;
  depth: number;
  days: number;
}

export interface Tearsheet {
  monthly: { month: string; ret: number }[];
  /** one per day from the window's end onwards; null before a full window */
  rollingSharpe: (number | null)[];
  drawdowns: DrawdownPeriod[];
  /** the mean invested share of the equity at the close */
  exposure: number;
  /** value bought and sold over the mean equity, per year */
  turnover: number;
  monteCarlo?: MonteCarlo;
}

export interface TearsheetInput {
  dates: readonly string[];
  equity: readonly number[];
  trades: readonly Trade[];
  /** the invested share at each close (a portfolio's); without it from the trades (in a position or not) */
  exposure?: readonly number[];
  /** the value traded (a portfolio's); without it from the trades */
  traded?: number;
}

export function tearsheet(input: TearsheetInput): Tearsheet {
  const { dates, equity, trades } = input;
  const n = dates.length;
  // monthly: the equity at each month's last close over the previous month's (the capital for the first)
  const monthly: Tearsheet['monthly'] = [];
  let base = equity[0];
  for (let i = 0; i < n; i++) {
    if (i === n - 1 || dates[i + 1].slice(0, 7) !== dates[i].slice(0, 7)) {
      monthly.push({ month: dates[i].slice(0, 7), ret: equity[i + 1] / base - 1 });
      base = equity[i + 1];
    }
  }
  const returns = equity.slice(1).map((e, i) => e / equity[i] - 1);
  const rollingSharpe = returns.map((_, i) =>
    i + 1 >= ROLLING_SHARPE_DAYS ? sharpe(returns.slice(i + 1 - ROLLING_SHARPE_DAYS, i + 1)) : null,
  );
  const exposure = input.exposure ?? exposureFromTrades(dates, trades);
  const meanEquity = equity.reduce((a, b) => a + b, 0) / equity.length;
  const traded = input.traded ?? trades.reduce((s, t) => s + t.shares * (t.buy_price + t.sell_price), 0);
  const tradeR = tradeReturns(trades, dates, equity);
  return {
    monthly,
    rollingSharpe,
    drawdowns: drawdownPeriods(dates, equity),
    exposure: exposure.length ? exposure.reduce((a, b) => a + b, 0) / exposure.length : 0,
    turnover: n > 0 ? traded / meanEquity / (n / DAYS_PER_YEAR) : 0,
    ...(tradeR.length >= 2 ? { monteCarlo: reshuffleTrades(tradeR) } : {}),
  };
}

function sharpe(r: readonly number[]): number | null {
  const mean = r.reduce((a, b) => a + b, 0) / r.length;
  const sd = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / (r.length - 1));
  return sd > 0 ? ((mean - RISK_FREE_DAILY) / sd) * Math.sqrt(DAYS_PER_YEAR) : null;
}

/** 1 on the days a position is held at the close (from a buy's day to the day before its sale), else 0. */
function exposureFromTrades(dates: readonly string[], trades: readonly Trade[]): number[] {
  const out = new Array<number>(dates.length).fill(0);
  const index = new Map(dates.map((d, i) => [d, i]));
  for (const t of trades) {
    const from = index.get(t.buy_date) ?? 0;
    const to = index.get(t.sell_date) ?? dates.length - 1;
    for (let i = from; i < to; i++) out[i] = 1;
  }
  return out;
}

/** Every fall from a peak, deepest first: its start (the peak's day; the capital's anchor is "start"), trough and recovery. */
function drawdownPeriods(dates: readonly string[], equity: readonly number[]): DrawdownPeriod[] {
  const label = (i: number) => (i === 0 ? `${dates[0]} (start)` : dates[i - 1]);
  const periods: DrawdownPeriod[] = [];
  let peak = 0;
  let trough = 0;
  for (let i = 1; i <= equity.length; i++) {
    const e = i < equity.length ? equity[i] : Infinity;
    if (e >= equity[peak]) {
      if (trough !== peak) {
        const recovered = i < equity.length;
        periods.push({
          start: label(peak),
          trough: label(trough),
          recovery: recovered ? label(i) : null,
          depth: (equity[peak] - equity[trough]) / equity[peak],
          days: (recovered ? i : equity.length - 1) - peak,
        });
      }
      peak = trough = i;
    } else if (e < equity[trough]) trough = i;
  }
  return periods.sort((a, b) => b.depth - a.depth);
}
