// What one order costs under an execution model, and where the day's price
// limits are: shared by the single-ticker rules engine (day-rules.ts) and the
// portfolio engine (portfolio.ts). Without a model every order is free and no
// limit binds. Same rounding as simulate-costs.ts: each fee to the fen.
import type { CostModel, ExecutionReport } from './execution-model.js';

export const fen = (x: number) => Math.round(x * 100 + 1e-7) / 100;

export interface Fees {
  commission: number;
  transferFee: number;
  stampDuty: number;
  total: number;
}

/** The fees of an order of `value` yuan on `day`: commission (with its minimum), transfer fee, stamp duty on sells. */
export function orderFees(model: CostModel | undefined, value: number, day: number, sell: boolean): Fees {
  if (!model || value <= 0) return { commission: 0, transferFee: 0, stampDuty: 0, total: 0 };
  const commission = Math.max(fen(value * model.commissionRate), model.commissionMinimum);
  const transferFee = fen(value * model.transferOn(day));
  const stampDuty = sell ? fen(value * model.stampOn(day)) : 0;
  return { commission, transferFee, stampDuty, total: commission + transferFee + stampDuty };
}

/** The most whole lots that `cash` pays for at `price`, fees included. */
export function affordableLots(model: CostModel | undefined, cash: number, price: number, day: number, lot: number): number {
  const perLot = price * lot;
  if (!(perLot > 0)) return 0;
  // free orders: the protocol's formula, to the bit
  if (!model) return Math.floor(cash / perLot);
  const rate = model ? model.commissionRate + model.transferOn(day) : 0;
  let lots = Math.floor(cash / (perLot * (1 + rate)));
  while (lots > 0 && lots * perLot + orderFees(model, lots * perLot, day, false).total > cash) lots--;
  return lots;
}

/** The day's limit-up and limit-down prices from the previous close (Infinity / 0 where no limit binds). */
export function limitPrices(limit: number, previousClose: number): { up: number; down: number } {
  if (!(limit > 0) || !(previousClose > 0)) return { up: Infinity, down: 0 };
  return { up: fen(previousClose * (1 + limit)), down: fen(previousClose * (1 - limit)) };
}

/** Limits bind by direction: a buy cannot fill at the limit-up price, a sale cannot fill at the limit-down price. */
export const buyBlocked = (price: number, up: number) => price >= up - 1e-6;
export const saleBlocked = (price: number, down: number) => price <= down + 1e-6;

/** Adds one order's fees and its slippage (qty x the raw price x the slippage rate) to a report, when there is one. */
export function chargeOrder(report: ExecutionReport | undefined, fees: Fees, qty: number, raw: number, slip: number): void {
  if (!report) return;
  report.commission += fees.commission;
  report.transferFee += fees.transferFee;
  report.stampDuty += fees.stampDuty;
  report.slippage += qty * raw * slip;
  report.orders++;
}
