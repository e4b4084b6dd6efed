// The portfolio engine: several tickers held together at target weights,
// rebalanced on a calendar (the first trading day of each month or quarter)
// or when a weight drifts too far, with the A-share costs and day rules when
// asked. The rules, in the order they apply each trading day (the union of the
// members' trading days; a member without a bar that day is suspended: it is
// valued at its last close and its orders wait for its next bar):
// 1. At the open, an intrabar exit (stop-loss, take-profit, trailing stop; see
//    day-rules.ts) sells the member's sellable shares; it stays out until the
//    next rebalance (or its next buy signal).
// 2. The member's strategy: a buy signal makes it wanted, a sell signal not
//    (a portfolio without rules wants every member all the time).
// 3. Targets: on the first day, on each rebalance day, and for a member whose
//    wish changed: target shares = whole lots of (equity at the open × invest ×
//    its weight, or the fixed amount) / the open; 0 for a member not wanted.
// 4. Orders move holdings to targets at the open: sales first, their cash
//    spent the same day (same-day cash), then buys in the members' order, each
//    only as many lots as the cash pays with fees (what the cash cannot pay is
//    dropped, not carried). T+1: shares bought today are not sold today. A buy
//    at the limit-up open and a sale at the limit-down open do not fill; a
//    volume cap fills part. What limits and caps hold back carries to the
//    member's next bar. No buy on the last day; the last close sells all.
// Equity at each close: cash + shares × the close (the last close if suspended).
import type { CostModel, ExecutionReport } from './execution-model.js';
import { chinaModel, emptyExecutionReport } from './execution-model.js';
import { intrabarExit, type DayRules, type ExitRules } from './day-rules.js';
import { affordableLots, buyBlocked, chargeOrder, fen, limitPrices, orderFees, saleBlocked, type Fees } from './order-costs.js';
import type { SimulationResult, Trade } from './simulator.js';
import { isoDay } from './days.js';

export const REBALANCE_CALENDARS = ['none', 'monthly', 'quarterly'] as const;
type RebalanceCalendar = (typeof REBALANCE_CALENDARS)[number];

export interface PortfolioMember {
  code: string;
  name: string;
  /** the member's trading days as day numbers (days.ts), ascending */
  days: ArrayLike<number>;
  open: ArrayLike<number>;
  close: ArrayLike<number>;
  high?: ArrayLike<number>;
  low?: ArrayLike<number>;
  volume?: ArrayLike<number>;
  /** the strategy's signals on the member's own days; absent: always wanted */
  buy?: readonly boolean[];
  sell?: readonly boolean[];
}

export interface PortfolioInput {
  members: PortfolioMember[];
  /** one per member; normalised to sum 1 */
  weights: number[];
  rebalance: RebalanceCalendar;
  drift?: number;
  invest: number;
  amount?: number;
  capital: number;
  model?: CostModel;
  slippageBps: number;
  exits?: ExitRules;
  dayRules?: DayRules;
}

/** One rebalance: the day, the equity at its open, the targets set, and the holdings and cash after its orders. */
interface Rebalance {
  date: string;
  reason: 'start' | 'calendar' | 'drift';
  equityAtOpen: number;
  targets: number[];
  holdings: number[];
  cash: number;
}

export interface PortfolioResult extends SimulationResult {
  dates: string[];
  rebalances: Rebalance[];
  /** the invested share of the equity at each close */
  exposure: number[];
  /** yuan bought and sold, all orders */
  traded: number;
  /** exits that fired, and orders held back by T+1, limits and volume caps */
  counts: {
    stopLosses: number;
    takeProfits: number;
    trailingStops: number;
    heldByT1: number;
    blockedByLimit: number;
    partialFills: number;
  };
}

const LOT = 100;
/** The calendar period of an ISO date: its month, or its quarter ("2024Q0" for January to March). */
const monthOf = (iso: string) => iso.slice(0, 7);
const quarterOf = (iso: string) => `${iso.slice(0, 4)}Q${Math.floor((Number(iso.slice(5, 7)) - 1) / 3)}`;

export function simulatePortfolio(input: PortfolioInput): PortfolioResult {
  const { members, model, exits } = input;
  const k = members.length;
  const sumW = input.weights.reduce((a, b) => a + b, 0);
  const weights = input.weights.map((w) => w / sumW);
  const lot = model?.lot ?? LOT;
  const slip = model ? input.slippageBps / 10_000 : 0;
  const limitModel = model ?? (input.dayRules?.limits ? chinaModel() : undefined);
  const rules = members.map((m) => limitModel?.rulesFor(m.code, m.name));
  const cap = input.dayRules?.volumeCap;

  const allDays = [...new Set(members.flatMap((m) => Array.from(m.days)))].sort((a, b) => a - b);
  const n = allDays.length;
  const at = new Array<number>(k).fill(-1); // each member's index of its bar today (or its last bar)
  const has = new Array<boolean>(k).fill(false); // the member has a bar today
  // today's limit prices of a member, worked out when an order or an exit needs them (limitDay: the day they are for)
  const limitUp = new Float64Array(k);
  const limitDown = new Float64Array(k);
  const limitDay = new Int32Array(k).fill(-1);
  const lastClose = new Array<number>(k).fill(NaN);
  const shares = new Array<number>(k).fill(0);
  const boughtToday = new Array<number>(k).fill(0);
  const target = new Array<number>(k).fill(0);
  const wanted = members.map((m) => !m.buy);
  const stoppedOut = new Array<boolean>(k).fill(false);
  const peak = new Array<number>(k).fill(0);
  const pos = members.map(() => ({ openedOn: '', cost: 0, bought: 0, buyValue: 0 }));
  let cash = input.capital;
  let traded = 0;
  const counts = { stopLosses: 0, takeProfits: 0, trailingStops: 0, heldByT1: 0, blockedByLimit: 0, partialFills: 0 };
  const equity = [input.capital];
  const exposure: number[] = [];
  const trades: Trade[] = [];
  const rebalances: Rebalance[] = [];
  const dates = allDays.map(isoDay);
  const report: ExecutionReport | undefined = model ? emptyExecutionReport('portfolio', input.slippageBps) : undefined;
  const charge = (fees: Fees, qty: number, raw: number) => chargeOrder(report, fees, qty, raw, slip);

  const sell = (i: number, t: number, raw: number, qty: number, forced: boolean, exit: Trade['exit']) => {
    const price = raw * (1 - slip);
    const value = qty * price;
    const fees = orderFees(model, value, allDays[t], true);
    charge(fees, qty, raw);
    cash += value - fees.total;
    traded += value;
    const p = pos[i];
    const costShare = (p.cost * qty) / shares[i];
    trades.push({
      buy_date: p.openedOn,
      buy_price: p.buyValue / p.bought,
      sell_date: dates[t],
      sell_price: price,
      shares: qty,
      pnl: value - fees.total - costShare,
      forced,
      exit,
    });
    p.cost -= costShare;
    shares[i] -= qty;
    if (shares[i] === 0) Object.assign(p, { openedOn: '', cost: 0, bought: 0, buyValue: 0 });
  };
  const buy = (i: number, t: number, raw: number, qty: number) => {
    const price = raw * (1 + slip);
    const value = qty * price;
    const fees = orderFees(model, value, allDays[t], false);
    charge(fees, qty, raw);
    cash -= value + fees.total;
    traded += value;
    const p = pos[i];
    if (shares[i] === 0) {
      p.openedOn = dates[t];
      peak[i] = price;
    }
    p.cost += value + fees.total;
    p.bought += qty;
    p.buyValue += value;
    shares[i] += qty;
    boughtToday[i] += qty;
  };
  const capOf = (i: number) => (cap ? Math.floor((cap * members[i].volume![at[i]]) / lot) * lot : Infinity);
  // the holdings at today's open (the last close if suspended) and at the close, summed in the members' order
  const valueAtOpen = () => {
    let v = 0;
    for (let i = 0; i < k; i++) if (shares[i]) v += shares[i] * (has[i] ? members[i].open[at[i]] : lastClose[i]);
    return v;
  };
  const valueAtClose = () => {
    let v = 0;
    for (let i = 0; i < k; i++) if (shares[i]) v += shares[i] * lastClose[i];
    return v;
  };
  /** Today's limit-down (sale) or limit-up (buy) price of a member with a bar today: none without limit rules, or on its first bar. */
  const limit = (i: number, t: number, side: 'up' | 'down') => {
    if (limitDay[i] !== t) {
      limitDay[i] = t;
      const l = rules[i] && at[i] > 0 ? limitPrices(rules[i]!.limitOn(allDays[t]), members[i].close[at[i] - 1]) : { up: Infinity, down: 0 };
      limitUp[i] = l.up;
      limitDown[i] = l.down;
    }
    return side === 'up' ? limitUp[i] : limitDown[i];
  };
  const changed: number[] = [];

  let prevPeriod = '';
  for (let t = 0; t < n; t++) {
    const day = allDays[t];
    for (let i = 0; i < k; i++) {
      const m = members[i];
      boughtToday[i] = 0;
      has[i] = false;
      if (at[i] + 1 < m.days.length && m.days[at[i] + 1] === day) {
        at[i]++;
        has[i] = true;
      }
    }
    const openOf = (i: number) => (has[i] ? members[i].open[at[i]] : lastClose[i]);
    // a rebalance day: the first, the first of a new month or quarter, or a weight drifted (at the last close)
    const period = input.rebalance === 'monthly' ? monthOf(dates[t]) : input.rebalance === 'quarterly' ? quarterOf(dates[t]) : '';
    let reason: Rebalance['reason'] | undefined = t === 0 ? 'start' : undefined;
    if (!reason && period !== prevPeriod && input.rebalance !== 'none') reason = 'calendar';
    if (!reason && input.drift !== undefined && t > 0) {
      const eClose = equity[t];
      for (let i = 0; i < k && !reason; i++) {
        const goal = wanted[i] && !stoppedOut[i] ? (input.amount !== undefined ? input.amount / eClose : input.invest * weights[i]) : 0;
        if (Math.abs((shares[i] ? shares[i] * lastClose[i] : 0) / eClose - goal) > input.drift) reason = 'drift';
      }
    }
    prevPeriod = period;
    // a member an exit took out comes back at the next rebalance
    if (reason) stoppedOut.fill(false);
    // 1. intrabar exits at the open (the shares bought before today: all of them, as buys come later)
    if (exits?.fill === 'intrabar') {
      for (let i = 0; i < k; i++) {
        if (!has[i] || shares[i] === 0) continue;
        const m = members[i];
        const hit = intrabarExit(exits, pos[i].buyValue / pos[i].bought, peak[i], m.open[at[i]], m.high![at[i]], m.low![at[i]]);
        if (!hit) continue;
        if (hit.kind === 'stop') counts.stopLosses++;
        else if (hit.kind === 'take') counts.takeProfits++;
        else counts.trailingStops++;
        stoppedOut[i] = true;
        if (m.buy) wanted[i] = false;
        target[i] = 0;
        if (saleBlocked(hit.price, limit(i, t, 'down'))) {
          counts.blockedByLimit++;
          continue;
        }
        const qty = Math.min(shares[i], capOf(i));
        if (qty < shares[i]) counts.partialFills++;
        if (qty > 0) sell(i, t, hit.price, qty, false, hit.kind);
      }
    }
    // 2. the strategies' wishes
    changed.length = 0;
    for (let i = 0; i < k; i++) {
      const m = members[i];
      if (!has[i] || !m.buy || stoppedOut[i]) continue;
      const before = wanted[i];
      if (m.sell?.[at[i]]) wanted[i] = false;
      else if (m.buy[at[i]]) wanted[i] = true;
      if (wanted[i] !== before) changed.push(i);
    }
    // 3. the targets, from the equity at the open (after the exits' sales)
    const equityAtOpen = cash + valueAtOpen();
    const goalShares = (i: number) => {
      if (!wanted[i] || stoppedOut[i]) return 0;
      const price = openOf(i);
      const value = input.amount !== undefined ? input.amount : equityAtOpen * input.invest * weights[i];
      return price > 0 ? Math.floor(value / (price * lot)) * lot : 0;
    };
    if (reason) for (let i = 0; i < k; i++) target[i] = goalShares(i);
    else for (const i of changed) target[i] = goalShares(i);
    // 4. orders: sales, then buys with the same day's cash
    if (t < n - 1) {
      for (let i = 0; i < k; i++) {
        if (!has[i] || shares[i] <= target[i]) continue;
        const sellable = shares[i] - boughtToday[i];
        if (sellable <= 0) {
          counts.heldByT1++;
          continue;
        }
        const raw = members[i].open[at[i]];
        if (saleBlocked(raw, limit(i, t, 'down'))) {
          counts.blockedByLimit++;
          continue;
        }
        const want = Math.min(shares[i] - target[i], sellable);
        const qty = Math.min(want, capOf(i));
        if (qty < want) counts.partialFills++;
        if (qty > 0) sell(i, t, raw, qty, false, target[i] === 0 && members[i].buy ? 'signal' : 'rebalance');
      }
      for (let i = 0; i < k; i++) {
        if (!has[i] || shares[i] >= target[i]) continue;
        const raw = members[i].open[at[i]];
        if (buyBlocked(raw, limit(i, t, 'up'))) {
          counts.blockedByLimit++;
          continue;
        }
        const want = target[i] - shares[i];
        const capped = Math.min(want, capOf(i));
        if (capped < want) counts.partialFills++;
        const qty = Math.min(capped, affordableLots(model, cash, raw * (1 + slip), day, lot) * lot);
        // what the cash cannot pay is dropped; what a cap held back carries
        if (qty < capped) target[i] = shares[i] + qty;
        if (qty > 0) buy(i, t, raw, qty);
      }
    }
    if (reason) rebalances.push({ date: dates[t], reason, equityAtOpen, targets: [...target], holdings: [...shares], cash });
    // the close: the last day sells everything
    for (let i = 0; i < k; i++) if (has[i]) lastClose[i] = members[i].close[at[i]];
    if (t === n - 1) for (let i = 0; i < k; i++) if (shares[i] > 0) sell(i, t, lastClose[i], shares[i], true, 'end');
    for (let i = 0; i < k; i++) if (shares[i] > 0) peak[i] = Math.max(peak[i], lastClose[i]);
    const invested = valueAtClose();
    equity.push(cash + invested);
    exposure.push(invested / (cash + invested));
  }
  if (report) {
    for (const key of ['commission', 'stampDuty', 'transferFee', 'slippage'] as const) report[key] = fen(report[key]);
    report.total = fen(report.commission + report.stampDuty + report.transferFee + report.slippage);
  }
  return { equity, trades, dates, rebalances, exposure, traded, counts, ...(report ? { execution: report } : {}) };
}
