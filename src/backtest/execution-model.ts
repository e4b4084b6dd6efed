// Execution models of a backtest. `none` is BACKTEST_PROTOCOL.md's lab
// setting (zero costs, every order fills) and the default. `china` applies
// the A-share rules as of each trade's date, from
// fixtures/backtest/execution-china.json: commission with a minimum per order,
// stamp duty on sells, the transfer fee, slippage, and the daily price limits
// of each board. The rates live in the fixture with their sources; this file
// only reads them, as day numbers, so a whole-market run looks them up fast.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fixturePath } from '../core/paths.js';
import { dayOfIso } from './days.js';

export const EXECUTION_MODELS = ['none', 'china'] as const;
export type ExecutionModelName = (typeof EXECUTION_MODELS)[number];

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const rateSchedule = z.array(z.object({ from: isoDate, rate: z.number().min(0).max(0.1) })).min(1);

const chinaSchema = z.object({
  name: z.literal('china'),
  label: z.string(),
  commission: z.object({ rate: z.number().min(0).max(0.01), minimum: z.number().min(0), source: z.string() }),
  stampDuty: z.object({ side: z.literal('sell'), schedule: rateSchedule, source: z.string() }),
  transferFee: z.object({ schedule: rateSchedule, source: z.string() }),
  slippageBps: z.object({ default: z.number().min(0).max(1_000), source: z.string() }),
  lot: z.number().int().positive(),
  priceLimits: z.object({
    source: z.string(),
    boards: z.array(
      z.object({
        board: z.string(),
        codes: z.string(),
        st: z.boolean(),
        schedule: z.array(z.object({ from: isoDate, limit: z.number().positive().max(1) })).min(1),
      }),
    ),
    stLimit: z.number().positive().max(1),
    stNames: z.string(),
  }),
});

type ChinaRules = z.infer<typeof chinaSchema>;

/** A dated schedule as parallel arrays of day numbers and values, ascending. */
interface Schedule {
  days: number[];
  values: number[];
}

const scheduleOf = (entries: { from: string; value: number }[]): Schedule => {
  const sorted = [...entries].sort((a, b) => a.from.localeCompare(b.from));
  return { days: sorted.map((e) => dayOfIso(e.from)), values: sorted.map((e) => e.value) };
};

/** The value in force on `day`; 0 before the first entry (the rule did not exist yet). */
function valueOn(s: Schedule, day: number): number {
  let v = 0;
  for (let i = 0; i < s.days.length && s.days[i] <= day; i++) v = s.values[i];
  return v;
}

/** The rules of one ticker: its board and whether it is an ST name are fixed; the rest depends on the day. */
interface TickerRules {
  board: string;
  /** the daily price limit on `day` (a fraction of the previous close); 0 where there is none */
  limitOn(day: number): number;
}

export interface CostModel {
  name: 'china';
  label: string;
  lot: number;
  commissionRate: number;
  commissionMinimum: number;
  stampOn(day: number): number;
  transferOn(day: number): number;
  defaultSlippageBps: number;
  rulesFor(code: string, name: string): TickerRules;
  /** the fixture, for the answer to say what was applied and where it comes from */
  rules: ChinaRules;
}

/** What the execution model did to a run, for the answer to say. */
export interface ExecutionReport {
  model: 'china';
  board: string;
  slippageBps: number;
  /** yuan paid, by kind, over all orders */
  commission: number;
  stampDuty: number;
  transferFee: number;
  /** yuan lost to slippage against the open (buys) and close (sells) */
  slippage: number;
  total: number;
  orders: number;
  /** orders that could not fill on their day (a limit-up open, a limit-down close) and waited */
  buysWaited: number;
  sellsWaited: number;
  /** the days those orders waited, together */
  daysWaited: number;
  /** a wanted buy that was still waiting when the window ended */
  unfilledBuy: boolean;
  /** the last day's forced sale was at a limit-down close (in the market it could not have filled) */
  forcedAtLimitDown: boolean;
}

/** A report with nothing charged yet, for an engine to fill order by order. */
export function emptyExecutionReport(board: string, slippageBps: number): ExecutionReport {
  return {
    model: 'china',
    board,
    slippageBps,
    commission: 0,
    stampDuty: 0,
    transferFee: 0,
    slippage: 0,
    total: 0,
    orders: 0,
    buysWaited: 0,
    sellsWaited: 0,
    daysWaited: 0,
    unfilledBuy: false,
    forcedAtLimitDown: false,
  };
}

let cached: CostModel | undefined;

/** The `china` model, read from its fixture once. */
export function chinaModel(): CostModel {
  if (cached) return cached;
  const rules = chinaSchema.parse(JSON.parse(readFileSync(fixturePath('backtest', 'execution-china.json'), 'utf8')));
  const stamp = scheduleOf(rules.stampDuty.schedule.map((e) => ({ from: e.from, value: e.rate })));
  const transfer = scheduleOf(rules.transferFee.schedule.map((e) => ({ from: e.from, value: e.rate })));
  const boards = rules.priceLimits.boards.map((b) => ({
    board: b.board,
    codes: new RegExp(b.codes),
    st: b.st,
    limits: scheduleOf(b.schedule.map((e) => ({ from: e.from, value: e.limit }))),
  }));
  // case-sensitive: the exchange writes ST and *ST in capitals; "Star Lake Bioscience" is not an ST name
  const stNames = new RegExp(rules.priceLimits.stNames);
  const tickerRules = new Map<string, TickerRules>();
  cached = {
    name: 'china',
    label: rules.label,
    lot: rules.lot,
    commissionRate: rules.commission.rate,
    commissionMinimum: rules.commission.minimum,
    stampOn: (day) => valueOn(stamp, day),
    transferOn: (day) => valueOn(transfer, day),
    defaultSlippageBps: rules.slippageBps.default,
    rules,
    rulesFor(code, name) {
      const key = `${code}\u0000${name}`;
      let r = tickerRules.get(key);
      if (!r) {
        const b = boards.find((x) => x.codes.test(code)) ?? boards[boards.length - 1];
        const st = b.st && stNames.test(name);
        const limits = b.limits;
        const stLimit = rules.priceLimits.stLimit;
        r = {
          board: st ? `${b.board} (ST)` : b.board,
          limitOn: (day) => (st && valueOn(limits, day) > 0 ? stLimit : valueOn(limits, day)),
        };
        if (tickerRules.size > 20_000) tickerRules.clear();
        tickerRules.set(key, r);
      }
      return r;
    },
  };
  return cached;
}
