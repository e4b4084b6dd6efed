// The protocol's execution (simulator.ts) with an A-share execution model
// (execution-model.ts): the same days, signals, T+1 and forced liquidation,
// plus what the market charges and refuses.
// - A buy fills at the open plus slippage, in whole lots, only as many lots as
//   the cash pays for with the buy's fees; a sell at the close minus slippage.
// - Fees on each order, rounded to the fen: commission (a rate, with a
//   minimum per order), the transfer fee, and on sells the stamp duty, each at
//   the rate in force on the trade's date.
// - A buy whose open is at the limit-up price, and a sell whose close is at
//   the limit-down price, do not fill: the order waits for the next day that
//   allows it (a day with no bar, a suspension, is no day at all). The last
//   day's forced liquidation always sells (the KPIs need a closed book); if
//   that close was at the limit-down price, the report says so.
// A trade's P&L is what came back from the sale less what the buy cost, fees included.
import { emptyExecutionReport, type CostModel, type ExecutionReport } from './execution-model.js';
import type { SimulationInput, SimulationResult } from './simulator.js';

export interface CostedInput extends SimulationInput {
  /** the trading days as day numbers (days.ts): the rates and limits in force depend on them */
  days: ArrayLike<number>;
  code: string;
  name: string;
  model: CostModel;
  slippageBps: number;
}

const fen = (x: number) => Math.round(x * 100 + 1e-7) / 100;

export function simulateWithCosts(input: CostedInput): SimulationResult & { execution: ExecutionReport } {
  const n = input.dates.length;
  const { model, days } = input;
  const slip = input.slippageBps / 10_000;
  const rules = model.rulesFor(input.code, input.name);
  const capital = input.capital ?? 1_000_000;
  const report: ExecutionReport = emptyExecutionReport(rules.board, input.slippageBps);
  const fees = (value: number, day: number, sell: boolean) => {
    const commission = Math.max(fen(value * model.commissionRate), model.commissionMinimum);
    const transferFee = fen(value * model.transferOn(day));
    const stampDuty = sell ? fen(value * model.stampOn(day)) : 0;
    return { commission, transferFee, stampDuty, total: commission + transferFee + stampDuty };
  };
  const charge = (f: ReturnType<typeof fees>) => {
    report.commission += f.commission;
    report.transferFee += f.transferFee;
    report.stampDuty += f.stampDuty;
    report.orders++;
  };

  let cash = capital;
  let shares = 0;
  let entry = -1;
  let entryPrice = 0;
  let entryCost = 0;
  let buyWaiting = false;
  let sellWaiting = false;
  const equity = [capital];
  const trades: SimulationResult['trades'] = [];

  const sell = (t: number, forced: boolean) => {
    const price = input.close[t] * (1 - slip);
    const value = shares * price;
    const f = fees(value, days[t], true);
    charge(f);
    report.slippage += shares * input.close[t] * slip;
    cash += value - f.total;
    trades.push({
      buy_date: input.dates[entry],
      buy_price: entryPrice,
      sell_date: input.dates[t],
      sell_price: price,
      shares,
      pnl: value - f.total - entryCost,
      forced,
    });
    shares = 0;
    entry = -1;
    sellWaiting = false;
  };

  // the limit prices of day t, from the previous bar's close (none on the window's first bar); looked up only on the
  // days an order is placed, which keeps a whole-market scan close to the protocol's speed
  const limitOf = (t: number) => (t > 0 ? rules.limitOn(days[t]) : 0);
  const atLimitUp = (t: number) => {
    const limit = limitOf(t);
    return limit > 0 && input.open[t] >= fen(input.close[t - 1] * (1 + limit)) - 1e-6;
  };
  const atLimitDown = (t: number) => {
    const limit = limitOf(t);
    return limit > 0 && input.close[t] <= fen(input.close[t - 1] * (1 - limit)) + 1e-6;
  };

  for (let t = 0; t < n; t++) {
    if (shares === 0 && (input.buy[t] || buyWaiting) && t < n - 1) {
      if (atLimitUp(t)) {
        if (!buyWaiting) report.buysWaited++;
        report.daysWaited++;
        buyWaiting = true;
      } else {
        buyWaiting = false;
        const price = input.open[t] * (1 + slip);
        const perLot = price * model.lot;
        let lots = Math.floor(cash / (perLot * (1 + model.commissionRate + model.transferOn(days[t]))));
        while (lots > 0 && lots * perLot + fees(lots * perLot, days[t], false).total > cash) lots--;
        if (lots > 0) {
          shares = lots * model.lot;
          const value = shares * price;
          const f = fees(value, days[t], false);
          charge(f);
          report.slippage += shares * input.open[t] * slip;
          cash -= value + f.total;
          entry = t;
          entryPrice = price;
          entryCost = value + f.total;
        }
      }
    } else if (shares > 0 && (input.sell[t] || sellWaiting) && t > entry) {
      if (atLimitDown(t)) {
        if (!sellWaiting) report.sellsWaited++;
        report.daysWaited++;
        sellWaiting = true;
      } else {
        sell(t, false);
      }
    }
    if (shares > 0 && t === n - 1) {
      if (atLimitDown(t)) report.forcedAtLimitDown = true;
      sell(t, true);
    }
    equity.push(cash + shares * input.close[t]);
  }
  report.unfilledBuy = buyWaiting;
  for (const k of ['commission', 'stampDuty', 'transferFee', 'slippage'] as const) report[k] = fen(report[k]);
  report.total = fen(report.commission + report.stampDuty + report.transferFee + report.slippage);
  return { equity, trades, execution: report };
}
