// The single-ticker engine with the rules a trader asks for on top of the
// protocol, each only when asked (spec.exits, spec.dayRules); without any of
// them run-spec.ts never comes here, so the protocol stays as it was.
//
// - Exits: a stop-loss and a take-profit at a fraction of the average entry
//   price, a trailing stop at a fraction below the highest close since entry.
//   `intrabar`: the day's range is checked against the level; a day that opens
//   through it fills at the open (a gap), otherwise at the level. When a bar
//   reaches both the stop and the take-profit, the stop is taken (the open to
//   the extremes is unknown; the cautious reading). `next_open`: a close
//   through the level sells at the next day's open.
// - T+1: shares bought today cannot be sold today (the protocol's "no T+0");
//   with partial fills only the shares bought before today are sellable.
// - Price limits by direction (with costs: china, or on request): a buy cannot
//   fill at the limit-up price, a sale cannot fill at the limit-down price; the
//   order waits for the next day. A limit-up day does not block a sale.
// - A volume cap: at most `volumeCap` of the day's volume (whole lots) fills;
//   the rest of the order carries to the next day (a buy at its open, a signal
//   sale at its close, an exit at its open) until filled or cancelled by the
//   other side's signal.
// - Position sizing: each entry buys for a fraction of the equity (the run is
//   flat when it buys, so the cash on hand) or for a fixed amount of yuan
//   (at most the cash), fees included, in whole lots; the rest stays cash.
// Buys fill at the open, signal sales at the close, the last close liquidates.
import type { CostModel, ExecutionReport } from './execution-model.js';
import { chinaModel, emptyExecutionReport } from './execution-model.js';
import { affordableLots, buyBlocked, chargeOrder, fen, limitPrices, orderFees, saleBlocked, type Fees } from './order-costs.js';
import type { RulesReport, SimulationInput, SimulationResult, Trade } from './simulator.js';

export const EXIT_FILLS = ['intrabar', 'next_open'] as const;
type ExitFill = (typeof EXIT_FILLS)[number];

export interface ExitRules {
  /** sell when the price falls this fraction below the average entry price */
  stopLoss?: number;
  /** sell when the price rises this fraction above the average entry price */
  takeProfit?: number;
  /** sell when the price falls this fraction below the highest close since entry */
  trailingStop?: number;
  fill: ExitFill;
}

export interface DayRules {
  /** the price limits, binding by direction, even without costs */
  limits?: boolean;
  /** the share of a day's volume an order may take; the rest carries to the next day */
  volumeCap?: number;
}

/** What one entry buys for: a fraction of the equity, or a fixed amount of yuan (at most the cash); the rest stays cash. */
export type PositionSize = { invest: number; amount?: undefined } | { amount: number; invest?: undefined };

export interface RulesInput extends SimulationInput {
  days: ArrayLike<number>;
  high?: ArrayLike<number>;
  low?: ArrayLike<number>;
  volume?: ArrayLike<number>;
  code: string;
  name: string;
  /** the A-share costs (costs: china), or none */
  model?: CostModel;
  slippageBps: number;
  exits?: ExitRules;
  dayRules?: DayRules;
  /** without it an entry spends all the cash (the protocol) */
  positionSize?: PositionSize;
}

type ExitKind = 'stop' | 'take' | 'trail';
const LOT = 100;

export function simulateWithRules(input: RulesInput): SimulationResult & { rules: RulesReport } {
  const n = input.dates.length;
  const { model, days, exits } = input;
  const lot = model?.lot ?? LOT;
  const slip = model ? input.slippageBps / 10_000 : 0;
  // the price limits come with the A-share costs, or alone on request (no fees then)
  const limitModel = model ?? (input.dayRules?.limits ? chinaModel() : undefined);
  const tickerRules = limitModel?.rulesFor(input.code, input.name);
  const cap = input.dayRules?.volumeCap;
  if ((exits?.fill === 'intrabar' && (!input.high || !input.low)) || (cap && !input.volume))
    throw new Error('simulateWithRules: intrabar exits need HIGH and LOW, a volume cap needs VOLUME');
  const capital = input.capital ?? 1_000_000;
  const sizing = input.sizing ?? 'lots';
  const rules: RulesReport = {
    stopLosses: 0,
    takeProfits: 0,
    trailingStops: 0,
    gapFills: 0,
    heldByT1: 0,
    buysBlockedByLimit: 0,
    salesBlockedByLimit: 0,
    partialFills: 0,
    daysCarried: 0,
  };
  const report: ExecutionReport | undefined = model ? emptyExecutionReport(tickerRules!.board, input.slippageBps) : undefined;
  const charge = (fees: Fees, qty: number, raw: number) => chargeOrder(report, fees, qty, raw, slip);

  let cash = capital;
  let shares = 0;
  let boughtToday = 0;
  let entryDay = -1;
  // the open position: what it cost (fees included), the shares and value bought and sold into it, one price per fill side
  const pos = { cost: 0, bought: 0, buyValue: 0, buyFills: 0, buyPrice: 0, sold: 0, sellValue: 0, sellFills: 0, sellPrice: 0, proceeds: 0 };
  let peak = 0;
  let buyLeft = 0; // shares still to buy of a carried order; -1: an order waiting whole, sized by the cash when it fills
  let sale: 'close' | 'open' | undefined; // a sale under way (carried), or an exit wanted at the next open
  let saleKind: ExitKind | 'signal' = 'signal';
  const equity = [capital];
  const trades: Trade[] = [];

  const capOf = (t: number) => (cap ? Math.floor((cap * input.volume![t]) / lot) * lot : Infinity);
  const limitsOf = (t: number) =>
    tickerRules && t > 0 ? limitPrices(tickerRules.limitOn(days[t]), input.close[t - 1]) : { up: Infinity, down: 0 };
  const avgEntry = () => (pos.buyFills === 1 ? pos.buyPrice : pos.buyValue / pos.bought);

  const closeTrade = (t: number, forced: boolean) => {
    trades.push({
      buy_date: input.dates[entryDay],
      buy_price: avgEntry(),
      sell_date: input.dates[t],
      sell_price: pos.sellFills === 1 ? pos.sellPrice : pos.sellValue / pos.sold,
      shares: pos.bought,
      // without costs the protocol's formula, to the bit; with them what came back less what went in
      pnl: model || pos.buyFills + pos.sellFills > 2 ? pos.proceeds - pos.cost : pos.bought * (pos.sellPrice - pos.buyPrice),
      forced,
      exit: forced ? 'end' : saleKind,
    });
    Object.assign(pos, {
      cost: 0,
      bought: 0,
      buyValue: 0,
      buyFills: 0,
      buyPrice: 0,
      sold: 0,
      sellValue: 0,
      sellFills: 0,
      sellPrice: 0,
      proceeds: 0,
    });
    entryDay = -1;
    sale = undefined;
    buyLeft = 0;
  };

  /** Sells `qty` shares at `raw` (less slippage) on day t. */
  const sellAt = (t: number, raw: number, qty: number, forced: boolean) => {
    const price = raw * (1 - slip);
    const value = qty * price;
    const f = orderFees(model, value, days[t], true);
    charge(f, qty, raw);
    cash += value - f.total;
    pos.proceeds += value - f.total;
    shares -= qty;
    pos.sold += qty;
    pos.sellValue += value;
    pos.sellFills++;
    pos.sellPrice = price;
    if (shares === 0) closeTrade(t, forced);
  };

  /** A sale wanted on day t at `raw` (the open or the close): T+1, the limit-down, the volume cap; what is left carries. */
  const trySale = (t: number, raw: number, when: 'open' | 'close') => {
    const sellable = shares - boughtToday;
    const carried = sale !== undefined;
    if (sellable <= 0) {
      rules.heldByT1++;
      sale = when;
      return;
    }
    if (saleBlocked(raw, limitsOf(t).down)) {
      if (!carried) rules.salesBlockedByLimit++;
      if (report) {
        if (!carried) report.sellsWaited++;
        report.daysWaited++;
      }
      sale = when;
      return;
    }
    const qty = Math.min(sellable, capOf(t));
    buyLeft = 0; // a sale cancels what was left to buy
    if (qty <= 0) {
      sale = when;
      rules.daysCarried++;
      return;
    }
    if (qty < shares) {
      if (qty < sellable && !carried) rules.partialFills++;
      rules.daysCarried++;
      sale = when;
    }
    sellAt(t, raw, qty, false);
  };

  for (let t = 0; t < n; t++) {
    boughtToday = 0;
    let actedAtOpen = false;
    const lim = limitsOf(t);
    // 1. at the open: a sale carried from yesterday or an exit wanted at this open, else an intrabar exit (from the day after the buy)
    if (shares > 0 && sale === 'open') {
      trySale(t, input.open[t], 'open');
      actedAtOpen = true;
    } else if (shares > 0 && sale === undefined && exits?.fill === 'intrabar' && t > entryDay) {
      const hit = intrabarExit(exits, avgEntry(), peak, input.open[t], input.high![t], input.low![t]);
      if (hit) {
        count(rules, hit.kind, hit.gap);
        saleKind = hit.kind;
        trySale(t, hit.price, 'open');
        actedAtOpen = true;
      }
    }
    // 2. a buy at the open: a new signal when flat, or what is left of a carried order
    const wantsBuy = (shares === 0 && sale === undefined && input.buy[t]) || buyLeft !== 0;
    if (!actedAtOpen && wantsBuy && t < n - 1) {
      const raw = input.open[t];
      if (buyBlocked(raw, lim.up)) {
        if (buyLeft === 0) rules.buysBlockedByLimit++;
        if (report) {
          if (buyLeft === 0) report.buysWaited++;
          report.daysWaited++;
        }
        if (buyLeft === 0) buyLeft = -1;
      } else {
        const price = raw * (1 + slip);
        // what this order may spend: all the cash, or the entry's size (sized when the order fills; a carried remainder keeps its count)
        const size = input.positionSize;
        const budget = !size || buyLeft > 0 ? cash : size.amount !== undefined ? Math.min(size.amount, cash) : cash * size.invest;
        let qty: number;
        if (sizing === 'shares' && !model) {
          qty = Math.floor(budget / price);
          if (qty < LOT) qty = 0;
        } else qty = affordableLots(model, budget, price, days[t], lot) * lot;
        if (buyLeft > 0) qty = Math.min(qty, buyLeft);
        const fill = Math.min(qty, capOf(t));
        if (fill > 0) {
          const value = fill * price;
          const f = orderFees(model, value, days[t], false);
          charge(f, fill, raw);
          if (shares === 0) {
            entryDay = t;
            peak = price;
            saleKind = 'signal';
          }
          cash -= value + f.total;
          pos.cost += value + f.total;
          shares += fill;
          boughtToday = fill;
          pos.bought += fill;
          pos.buyValue += value;
          pos.buyFills++;
          pos.buyPrice = price;
          // the bar went through a stop on the day of the buy: T+1 keeps the shares to tomorrow
          if (exits?.fill === 'intrabar' && input.low![t] <= levels(exits, avgEntry(), peak).down) rules.heldByT1++;
        }
        if (fill < qty) {
          if (buyLeft <= 0) rules.partialFills++;
          rules.daysCarried++;
          buyLeft = qty - fill;
        } else buyLeft = 0;
      }
    }
    // 3. at the close: a carried sale, or a sell signal (not on the day the position was opened: T+1), else a next-open exit
    if (shares > 0 && !actedAtOpen) {
      if (sale === 'close' || (sale === undefined && input.sell[t] && t > entryDay)) {
        if (sale === undefined) saleKind = 'signal';
        trySale(t, input.close[t], 'close');
      } else if (exits?.fill === 'next_open' && sale === undefined && t > entryDay - 1 && t < n - 1) {
        const hit = closeExit(exits, avgEntry(), peak, input.close[t]);
        if (hit) {
          count(rules, hit, false);
          saleKind = hit;
          sale = 'open';
        }
      }
    }
    // 4. the last close liquidates whatever is held (the KPIs need a closed book)
    if (shares > 0 && t === n - 1) {
      if (report && saleBlocked(input.close[t], lim.down)) report.forcedAtLimitDown = true;
      sellAt(t, input.close[t], shares, true);
    }
    if (report && t === n - 1) report.unfilledBuy = buyLeft !== 0;
    if (shares > 0) peak = Math.max(peak, input.close[t]);
    equity.push(cash + shares * input.close[t]);
  }
  if (report) {
    for (const k of ['commission', 'stampDuty', 'transferFee', 'slippage'] as const) report[k] = fen(report[k]);
    report.total = fen(report.commission + report.stampDuty + report.transferFee + report.slippage);
  }
  return { equity, trades, rules, ...(report ? { execution: report } : {}) };
}

function count(r: RulesReport, kind: ExitKind, gap: boolean) {
  if (kind === 'stop') r.stopLosses++;
  else if (kind === 'take') r.takeProfits++;
  else r.trailingStops++;
  if (gap) r.gapFills++;
}

/** The exit levels in force for a position: the higher of the stop and the trailing stop below, the take-profit above. */
function levels(e: ExitRules, entry: number, peak: number): { down: number; downKind: ExitKind; up: number } {
  const stop = e.stopLoss !== undefined ? entry * (1 - e.stopLoss) : -Infinity;
  const trail = e.trailingStop !== undefined ? peak * (1 - e.trailingStop) : -Infinity;
  return {
    down: Math.max(stop, trail),
    downKind: trail > stop ? 'trail' : 'stop',
    up: e.takeProfit !== undefined ? entry * (1 + e.takeProfit) : Infinity,
  };
}

/** An intrabar exit on a bar: the gap at the open first, then the stop side before the take-profit. */
export function intrabarExit(
  e: ExitRules,
  entry: number,
  peak: number,
  open: number,
  high: number,
  low: number,
): { kind: ExitKind; price: number; gap: boolean } | undefined {
  const l = levels(e, entry, peak);
  if (open <= l.down) return { kind: l.downKind, price: open, gap: true };
  if (open >= l.up) return { kind: 'take', price: open, gap: true };
  if (low <= l.down) return { kind: l.downKind, price: l.down, gap: false };
  if (high >= l.up) return { kind: 'take', price: l.up, gap: false };
  return undefined;
}

function closeExit(e: ExitRules, entry: number, peak: number, close: number): ExitKind | undefined {
  const l = levels(e, entry, Math.max(peak, close));
  if (close <= l.down) return l.downKind;
  if (close >= l.up) return 'take';
  return undefined;
}
