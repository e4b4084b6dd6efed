// The execution rules of BACKTEST_PROTOCOL.md, to the letter: long-only,
// strictly alternating, buy at the open, sell at the close, no T+0, no buy on
// the last day, forced liquidation at the last close, zero costs.

import type { ExecutionReport } from './execution-model.js';

type Sizing = 'lots' | 'shares';

export interface SimulationInput {
  /** trading dates, for the trade list (any labels; same length as the prices) */
  dates: readonly string[];
  open: ArrayLike<number>;
  close: ArrayLike<number>;
  buy: readonly boolean[];
  sell: readonly boolean[];
  capital?: number;
  sizing?: Sizing;
}

export interface Trade {
  buy_date: string;
  buy_price: number;
  sell_date: string;
  sell_price: number;
  shares: number;
  pnl: number;
  /** true when the position was closed by the forced liquidation of the last day */
  forced: boolean;
  /** what closed it, when an exit rule was asked for (day-rules.ts): a signal, a stop, a take-profit, a trailing stop, the end */
  exit?: 'signal' | 'stop' | 'take' | 'trail' | 'rebalance' | 'end';
}

/** What the rules did to a run, for the answer to say. */
export interface RulesReport {
  stopLosses: number;
  takeProfits: number;
  trailingStops: number;
  /** exits that filled at the open because the day gapped through the level */
  gapFills: number;
  /** sales a signal or an exit wanted on the day of a buy, held to a later day by T+1 */
  heldByT1: number;
  buysBlockedByLimit: number;
  salesBlockedByLimit: number;
  /** orders filled in parts because of the volume cap, and the days their remainders carried */
  partialFills: number;
  daysCarried: number;
}

export interface SimulationResult {
  /** N+1 points: E_0 = C0, then the equity after each day's actions at its close */
  equity: number[];
  trades: Trade[];
  /** what an execution model other than the protocol's charged and refused (simulate-costs.ts) */
  execution?: ExecutionReport;
  /** what the exits and day rules did, when asked for (day-rules.ts) */
  rules?: RulesReport;
}

const DEFAULT_CAPITAL = 1_000_000;
const LOT = 100;

export function simulate(input: SimulationInput): SimulationResult {
  const n = input.dates.length;
  if (input.open.length !== n || input.close.length !== n || input.buy.length !== n || input.sell.length !== n) {
    throw new Error('simulate: dates, prices and signals must have the same length');
  }
  const capital = input.capital ?? DEFAULT_CAPITAL;
  const sizing = input.sizing ?? 'lots';
  let cash = capital;
  let shares = 0;
  let entry = -1;
  let entryPrice = 0;
  const equity = [capital];
  const trades: Trade[] = [];

  const closePosition = (t: number, forced: boolean) => {
    const price = input.close[t];
    cash += shares * price;
    trades.push({
      buy_date: input.dates[entry],
      buy_price: entryPrice,
      sell_date: input.dates[t],
      sell_price: price,
      shares,
      pnl: shares * (price - entryPrice),
      forced,
    });
    shares = 0;
    entry = -1;
  };

  for (let t = 0; t < n; t++) {
    if (shares === 0 && input.buy[t] && t < n - 1) {
      const price = input.open[t];
      let size = sizing === 'lots' ? Math.floor(cash / (price * LOT)) * LOT : Math.floor(cash / price);
      if (sizing === 'shares' && size < LOT) size = 0;
      if (size > 0) {
        shares = size;
        cash -= size * price;
        entry = t;
        entryPrice = price;
      }
    } else if (shares > 0 && input.sell[t] && t > entry) {
      closePosition(t, false);
    }
    if (shares > 0 && t === n - 1) closePosition(t, true);
    equity.push(cash + shares * input.close[t]);
  }
  return { equity, trades };
}
