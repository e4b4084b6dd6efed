// The strategy spec: everything one backtest request means, as data. The rule
// syntax and the LLM both produce it; the engine only ever runs it. zod checks
// its shape, `checkSpec` the things a shape cannot say (task vs. tickers...).
import { z } from 'zod';
import { KPI_NAMES } from './kpis.js';
import { instantiate, loadLibrary, type Factor } from './library.js';
import { UserError } from '../core/errors.js';
import { EXECUTION_MODELS } from './execution-model.js';
import { EXIT_FILLS } from './day-rules.js';
import { REBALANCE_CALENDARS } from './portfolio.js';
import { compileExpression } from './expr/compile.js';
import type { Field } from './expr/parser.js';

const factorRefSchema = z.object({
  factor: z.string().describe('factor id from the library, e.g. RSI, MA, MACD_CROSS_UP'),
  params: z.record(z.string(), z.number()).optional().describe('parameter overrides by name, e.g. {"n": 14}'),
});

const conditionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('rule'), rule: z.string().describe('an atomic rule id, e.g. RSI_OVERSOLD') }),
  z.object({
    type: z.literal('compare'),
    left: factorRefSchema,
    op: z.enum(['>', '<', '>=', '<=']),
    right: z.union([z.number(), factorRefSchema]),
  }),
  z.object({ type: z.literal('cross'), left: factorRefSchema, direction: z.enum(['above', 'below']), right: factorRefSchema }),
  z.object({ type: z.literal('event'), event: factorRefSchema.describe('an event factor (1 on the day it happens)') }),
  z.object({ type: z.literal('expression'), code: z.string().describe('a raw factor short code') }),
]);

const strategySchema = z.object({
  name: z.string(),
  buy: z.array(conditionSchema).min(1, 'a strategy needs at least one buy condition'),
  sell: z.array(conditionSchema),
});

const sideSchema = z.enum(['buy', 'sell']);
/** One factor term of strategy A: a side, a condition's place on it (0 first), and the operand (left of the comparison or right). */
const termPlaceSchema = z.object({ side: sideSchema, condition: z.number().int().min(0), operand: z.enum(['left', 'right']) });

/**
 * A sweep's axis: a parameter of a factor (RSI's n), the values to try. It varies that parameter in every term of
 * the factor (the protocol's reading), or with `terms` only in those (MA(5..20 step 5) crosses above MA(30..60 step 10)).
 */
const paramAxisSchema = z.object({
  factor: z.string(),
  param: z.string(),
  candidates: z.array(z.number()).min(2),
  terms: z.array(termPlaceSchema).min(1).optional().describe('only these terms of strategy A; without it every term of the factor'),
});
/** A sweep's axis: the number a condition compares with ("RSI(14) < 20..40 step 5"), by its side and place in strategy A. */
const thresholdAxisSchema = z.object({
  threshold: z.object({
    side: sideSchema,
    condition: z.number().int().min(0).describe('0 for the first condition of that side'),
  }),
  candidates: z.array(z.number()).min(2),
});
const sweepAxisSchema = z.union([paramAxisSchema, thresholdAxisSchema]);

/**
 * A sweep's limits: more candidates than MAX_SWEEP_RUNS is a job, not a question; a heat map with more than
 * MAX_AXIS_VALUES rows or columns is unreadable.
 */
export const MAX_SWEEP_RUNS = 1_000;
export const MAX_AXIS_VALUES = 50;

export const TASKS = ['metrics', 'ticker_selection', 'parameter_confirmation', 'strategy_selection'] as const;
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');

export const strategySpecSchema = z.object({
  task: z.enum(TASKS),
  tickers: z.array(z.string().min(1)).min(1, 'name at least one ticker (code or company name)'),
  start: isoDate.optional(),
  end: isoDate.optional(),
  strategies: z.array(strategySchema).min(1),
  kpi: z.enum(KPI_NAMES),
  parameter: sweepAxisSchema
    .optional()
    .describe('parameter confirmation: one parameter of one factor (or one threshold), the values to try'),
  secondParameter: sweepAxisSchema
    .optional()
    .describe('a grid sweep: a second parameter (or threshold) to vary; every pair of the two lists runs'),
  capital: z.number().positive().default(1_000_000),
  sizing: z.enum(['lots', 'shares']).default('lots'),
  /** the execution model: the protocol's zero-cost lab setting, or the A-share costs and rules (execution-model.ts) */
  costs: z.enum(EXECUTION_MODELS).default('none'),
  /** slippage against the open (buys) and close (sells), in basis points; only with costs: china (default: its fixture's) */
  slippageBps: z.number().min(0).max(1_000).optional(),
  /** a walk-forward check of a best-parameter or best-strategy run: the share of the trading days in sample */
  walkForward: z.number().min(0.5).max(0.9).optional(),
  /** exits on top of the sell rule, each only when asked (day-rules.ts) */
  exits: z
    .object({
      stopLoss: z.number().gt(0).lt(1).optional().describe('sell when the price is this fraction below the entry price'),
      takeProfit: z.number().gt(0).max(10).optional().describe('sell when the price is this fraction above the entry price'),
      trailingStop: z.number().gt(0).lt(1).optional().describe('sell when the price is this fraction below the highest close since entry'),
      fill: z
        .enum(EXIT_FILLS)
        .default('intrabar')
        .describe('intrabar: at the level (the open on a gap); next_open: a close through it sells at the next open'),
    })
    .optional(),
  /** A-share day rules beyond the protocol's, each only when asked (day-rules.ts) */
  dayRules: z
    .object({
      limits: z.boolean().optional().describe('price limits bind by direction even without costs'),
      volumeCap: z.number().gt(0).max(1).optional().describe("at most this share of a day's volume fills; the rest carries"),
    })
    .optional(),
  /** a single-ticker run's position sizing (day-rules.ts); without it each entry spends all the cash (the protocol) */
  positionSize: z
    .object({
      invest: z.number().gt(0).max(1).optional().describe('each entry buys for this fraction of the equity; the rest stays cash'),
      amount: z.number().positive().optional().describe('each entry buys for this many yuan (at most the cash), fees included'),
    })
    .optional()
    .describe('one of invest or amount; whole lots of 100 shares; not for a portfolio (it has its own invest and amount)'),
  /** several tickers held together with weights and rebalancing (portfolio.ts) */
  portfolio: z
    .object({
      weights: z.array(z.number().positive()).optional().describe('one per ticker, in order; without it equal weights'),
      rebalance: z.enum(REBALANCE_CALENDARS).default('monthly'),
      drift: z.number().gt(0).lt(1).optional().describe('also rebalance when a weight is this far (absolute) from its target'),
      invest: z.number().gt(0).max(1).default(1).describe('the fraction of equity invested at a rebalance; the rest stays cash'),
      amount: z.number().positive().optional().describe('a fixed amount of yuan per ticker instead of a fraction of equity'),
      top: z
        .object({ n: z.number().int().min(1), by: z.string(), order: z.enum(['highest', 'lowest']) })
        .optional()
        .describe('the n tickers with the highest (or lowest) value of a field on the first day'),
    })
    .optional(),
  /** the tearsheet under the answer: monthly returns, rolling Sharpe, drawdown periods, exposure, turnover, Monte Carlo */
  tearsheet: z.boolean().optional(),
});

/** A portfolio without buy rules holds every member: its strategy's one buy condition, always true. */
export const HOLD_ALWAYS: Condition = { type: 'expression', code: '1' };
export const holdsAlways = (s: Strategy) =>
  s.sell.length === 0 && s.buy.length === 1 && s.buy[0].type === 'expression' && s.buy[0].code === HOLD_ALWAYS.code;

/** `compare all ...`: every ticker of the database. */
export const ALL_TICKERS = '*';

export type FactorRef = z.infer<typeof factorRefSchema>;
export type Condition = z.infer<typeof conditionSchema>;
export type Strategy = z.infer<typeof strategySchema>;
export type StrategySpec = z.infer<typeof strategySpecSchema>;
export type Task = (typeof TASKS)[number];
export type SweepAxis = z.infer<typeof sweepAxisSchema>;
export type Side = z.infer<typeof sideSchema>;
export type TermPlace = z.infer<typeof termPlaceSchema>;

/** The axes a spec sweeps, in order: none, one (parameter confirmation), or two (a grid). */
export function sweepAxes(spec: Pick<StrategySpec, 'parameter' | 'secondParameter'>): SweepAxis[] {
  return [spec.parameter, spec.secondParameter].filter((a): a is SweepAxis => a !== undefined);
}

/** An axis as a user names it: "RSI.n", "buy threshold"; two axes of one parameter are "1st MA.n" and "2nd MA.n" (as written). */
export function axisName(axis: SweepAxis, all: readonly SweepAxis[] = [axis]): string {
  if ('threshold' in axis) {
    const { side, condition } = axis.threshold;
    return `${side} threshold${condition > 0 ? ` ${condition + 1}` : ''}`;
  }
  const name = `${axis.factor}.${axis.param}`;
  const same = all.filter((a) => !('threshold' in a) && `${a.factor}.${a.param}` === name);
  return same.length > 1 ? `${same.indexOf(axis) === 0 ? '1st' : '2nd'} ${name}` : name;
}

/** Do two axes vary the same thing (one factor parameter in overlapping terms, or one threshold)? */
function overlap(a: SweepAxis, b: SweepAxis): boolean {
  if ('threshold' in a || 'threshold' in b)
    return 'threshold' in a && 'threshold' in b && a.threshold.side === b.threshold.side && a.threshold.condition === b.threshold.condition;
  if (a.factor.toUpperCase() !== b.factor.toUpperCase() || a.param !== b.param) return false;
  if (!a.terms || !b.terms) return true;
  return a.terms.some((x) => b.terms!.some((y) => x.side === y.side && x.condition === y.condition && x.operand === y.operand));
}

/** Problems with a spec's meaning, each a sentence for the user. */
export function checkSpec(spec: StrategySpec): string[] {
  const problems: string[] = [];
  const { task, tickers, strategies } = spec;
  const everyTicker = tickers.length === 1 && tickers[0] === ALL_TICKERS;
  if (everyTicker && task !== 'ticker_selection' && !spec.portfolio?.top)
    problems.push('"all" tickers only makes sense for ticker selection (compare all ...)');
  if (task === 'ticker_selection' && tickers.length < 2 && !everyTicker)
    problems.push('ticker selection needs at least two tickers to compare');
  if (spec.portfolio) problems.push(...portfolioProblems(spec));
  const size = spec.positionSize;
  if (size && (size.invest === undefined) === (size.amount === undefined))
    problems.push('position sizing is either a fraction of the equity (invest: 50%) or an amount of yuan (amount: 100000), one of them');
  if (size && spec.portfolio) problems.push("a portfolio sizes its members with its own invest: or amount:; drop the single run's sizing");
  if (task !== 'ticker_selection' && tickers.length > 1 && !spec.portfolio)
    problems.push(`${task.replace('_', ' ')} runs on one ticker; ${tickers.length} were given`);
  if (task === 'strategy_selection' && strategies.length < 2) problems.push('strategy selection needs at least two strategies (A, B, ...)');
  if (task !== 'strategy_selection' && strategies.length > 1)
    problems.push(`${task.replace('_', ' ')} runs one strategy; ${strategies.length} were given`);
  if (task === 'parameter_confirmation' && !spec.parameter)
    problems.push('parameter confirmation needs the parameter to vary and its candidate values');
  if (task !== 'parameter_confirmation' && (spec.parameter || spec.secondParameter))
    problems.push('candidate parameter values only make sense for parameter confirmation');
  if (spec.secondParameter && !spec.parameter) problems.push('a second parameter needs a first one to make a grid');
  if (spec.walkForward !== undefined && task !== 'parameter_confirmation' && task !== 'strategy_selection')
    problems.push('a walk-forward checks a pick: it needs several parameter values (RSI(6|14|24)) or strategies (A, B) to pick from');
  if (spec.start && spec.end && spec.start > spec.end) problems.push(`the window starts (${spec.start}) after it ends (${spec.end})`);
  const axes = sweepAxes(spec);
  if (axes.length === 2 && overlap(axes[0], axes[1])) problems.push(`${axisName(axes[0])} is varied twice; vary two different parameters`);
  for (const axis of axes) problems.push(...axisProblems(axis, strategies[0]));
  const runs = axes.reduce((n, a) => n * a.candidates.length, 1);
  if (axes.length === 2) {
    for (const axis of axes)
      if (axis.candidates.length > MAX_AXIS_VALUES)
        problems.push(
          `${axisName(axis, axes)} has ${axis.candidates.length} values; a grid takes at most ${MAX_AXIS_VALUES} a side (use a larger step)`,
        );
  }
  if (runs > MAX_SWEEP_RUNS)
    problems.push(
      `the sweep has ${axes.map((a) => a.candidates.length.toLocaleString('en-US')).join(' × ')} = ${runs.toLocaleString('en-US')} runs; ` +
        `at most ${MAX_SWEEP_RUNS.toLocaleString('en-US')} in one answer (use a larger step)`,
    );
  for (const s of strategies) {
    for (const c of [...s.buy, ...s.sell]) {
      try {
        conditionCode(c);
      } catch (error) {
        problems.push(`strategy ${s.name}: ${(error as Error).message}`);
      }
    }
  }
  return problems;
}

function portfolioProblems(spec: StrategySpec): string[] {
  const p = spec.portfolio!;
  const problems: string[] = [];
  if (spec.task !== 'metrics') problems.push('a portfolio is one run: it cannot also compare strategies or sweep parameters');
  if (spec.tickers.length < 2 && !p.top) problems.push('a portfolio needs at least two tickers');
  if (p.weights && p.weights.length !== spec.tickers.length)
    problems.push(`${p.weights.length} weights for ${spec.tickers.length} tickers; give one weight per ticker`);
  return problems;
}

function axisProblems(axis: SweepAxis, strategy: Strategy | undefined): string[] {
  const problems: string[] = [];
  if ('threshold' in axis) {
    const { side, condition } = axis.threshold;
    const c = strategy?.[side][condition];
    if (!c) problems.push(`the ${side} rule has no condition ${condition + 1} to vary the threshold of`);
    else if (!(c.type === 'rule' || (c.type === 'compare' && typeof c.right === 'number')))
      problems.push(`the ${side} condition ${conditionLabel(c)} compares with no number, so it has no threshold to vary`);
    return problems;
  }
  const f = loadLibrary().factor(axis.factor);
  for (const t of axis.terms ?? []) {
    const ref = strategy && termAt(strategy, t);
    if (!ref || factorOf(ref).id !== f?.id)
      problems.push(
        `${axis.factor}.${axis.param} is varied in the ${t.side} condition ${t.condition + 1} (${t.operand}), where there is no ${axis.factor}`,
      );
  }
  if (!f) problems.push(`unknown factor ${axis.factor}`);
  else if (!f.params.some((p) => p.name === axis.param)) {
    problems.push(`${f.id} has no parameter "${axis.param}" (it takes ${f.params.map((p) => p.name).join(', ') || 'none'})`);
  }
  return problems;
}

/** The factor term at a place of a strategy (a rule's factor is its left operand). */
function termAt(strategy: Strategy, t: TermPlace): FactorRef | undefined {
  const c = strategy[t.side][t.condition];
  if (!c) return undefined;
  if (c.type === 'rule') {
    const rule = loadLibrary().rules.find((r) => r.id === c.rule.toUpperCase());
    return rule && t.operand === 'left' ? { factor: rule.factor, params: rule.params } : undefined;
  }
  if (c.type === 'event') return t.operand === 'left' ? c.event : undefined;
  if (c.type === 'expression') return undefined;
  if (t.operand === 'left') return c.left;
  return typeof c.right === 'number' ? undefined : c.right;
}

function factorOf(ref: FactorRef): Factor {
  const factor = loadLibrary().factor(ref.factor);
  if (!factor) throw new UserError(`unknown factor "${ref.factor}"`);
  return factor;
}

type Operand = TermPlace['operand'];
/** A factor parameter's value; with `operand`, only in that term of the condition. */
type ParamOverride = { factor: string; param: string; value: number; operand?: Operand };

/** What a sweep's candidate changes in one condition: factor parameters, and the number it compares with. */
export interface ConditionOverride {
  params?: readonly ParamOverride[];
  threshold?: number;
}

/** A sweep candidate's values (one per axis) as what they change. */
export interface Setting {
  params: { factor: string; param: string; value: number; terms?: TermPlace[] }[];
  thresholds: { side: Side; condition: number; value: number }[];
}

export function settingOf(spec: Pick<StrategySpec, 'parameter' | 'secondParameter'>, values?: readonly number[]): Setting | undefined {
  if (!values?.length) return undefined;
  const setting: Setting = { params: [], thresholds: [] };
  sweepAxes(spec).forEach((axis, i) => {
    const value = values[i];
    if (value === undefined || Number.isNaN(value)) return;
    if ('threshold' in axis) setting.thresholds.push({ ...axis.threshold, value });
    else setting.params.push({ factor: axis.factor, param: axis.param, value, ...(axis.terms ? { terms: axis.terms } : {}) });
  });
  return setting;
}

function overrideAt(setting: Setting | undefined, side: Side, condition: number): ConditionOverride | undefined {
  if (!setting) return undefined;
  const t = setting.thresholds.find((x) => x.side === side && x.condition === condition);
  const params: ParamOverride[] = [];
  for (const { terms, ...p } of setting.params) {
    if (!terms) params.push(p);
    else for (const term of terms) if (term.side === side && term.condition === condition) params.push({ ...p, operand: term.operand });
  }
  return { params, ...(t ? { threshold: t.value } : {}) };
}

/** One side of a strategy, each condition as its factor expression, under a sweep candidate's setting. */
export function sideCodes(strategy: Strategy, side: Side, setting?: Setting): string[] {
  return strategy[side].map((c, i) => conditionCode(c, overrideAt(setting, side, i)));
}

/** One side of a strategy in words, under a sweep candidate's setting. */
export function sideLabels(strategy: Strategy, side: Side, setting?: Setting): string[] {
  return strategy[side].map((c, i) => conditionLabel(c, overrideAt(setting, side, i)));
}

function withParams(
  ref: FactorRef,
  override: ConditionOverride | undefined,
  operand: Operand,
): { factor: Factor; params: Record<string, number> } {
  const factor = factorOf(ref);
  const params = { ...ref.params };
  for (const o of override?.params ?? []) {
    if (o.factor.toUpperCase() === factor.id && (o.operand === undefined || o.operand === operand)) params[o.param] = o.value;
  }
  return { factor, params };
}

/** The short code of a factor reference (the left or right operand of its condition), with a sweep's overrides. */
function refCode(ref: FactorRef, override?: ConditionOverride, operand: Operand = 'left'): string {
  const { factor, params } = withParams(ref, override, operand);
  return instantiate(factor, params);
}

function refLabel(ref: FactorRef, override?: ConditionOverride, operand: Operand = 'left'): string {
  const { factor, params } = withParams(ref, override, operand);
  const shown = factor.params.map((p) => params[p.name] ?? p.default);
  return shown.length ? `${factor.id}(${shown.join(',')})` : factor.id;
}

/** A condition as one factor expression (true on the days it holds). */
export function conditionCode(c: Condition, override?: ConditionOverride): string {
  switch (c.type) {
    case 'rule': {
      const rule = loadLibrary().rules.find((r) => r.id === c.rule.toUpperCase());
      if (!rule) throw new UserError(`unknown rule "${c.rule}"`);
      return `(${refCode({ factor: rule.factor, params: rule.params }, override)}) ${rule.op} ${override?.threshold ?? rule.threshold}`;
    }
    case 'compare': {
      const right = typeof c.right === 'number' ? String(override?.threshold ?? c.right) : `(${refCode(c.right, override, 'right')})`;
      return `(${refCode(c.left, override)}) ${c.op} ${right}`;
    }
    case 'cross': {
      const a = `(${refCode(c.left, override)})`;
      const b = `(${refCode(c.right, override, 'right')})`;
      return c.direction === 'above' ? `${a} > ${b} && DELAY(${a},1) <= DELAY(${b},1)` : `${a} < ${b} && DELAY(${a},1) >= DELAY(${b},1)`;
    }
    case 'event':
      return `(${refCode(c.event, override)}) > 0`;
    case 'expression':
      return c.code;
  }
}

/** A condition in words, for answers: "RSI(14) < 30", "MA(5) crosses above MA(20)". */
export function conditionLabel(c: Condition, override?: ConditionOverride): string {
  switch (c.type) {
    case 'rule': {
      const rule = loadLibrary().rules.find((r) => r.id === c.rule.toUpperCase());
      if (!rule) return c.rule;
      const ref = refLabel({ factor: rule.factor, params: rule.params }, override);
      // with another threshold it is no longer the named rule
      if (override?.threshold !== undefined && override.threshold !== rule.threshold) return `${ref} ${rule.op} ${override.threshold}`;
      return `${ref} ${rule.op} ${rule.threshold} (${rule.id})`;
    }
    case 'compare':
      return `${refLabel(c.left, override)} ${c.op} ${typeof c.right === 'number' ? (override?.threshold ?? c.right) : refLabel(c.right, override, 'right')}`;
    case 'cross':
      return `${refLabel(c.left, override)} crosses ${c.direction} ${refLabel(c.right, override, 'right')}`;
    case 'event':
      return refLabel(c.event, override);
    case 'expression':
      return `{${c.code}}`;
  }
}

/** The columns a portfolio's members can be ranked by (their value on the first day of the window). */
export const RANKABLE_FIELDS: readonly Field[] = ['CLOSE', 'OPEN', 'VOLUME', 'AMOUNT', 'PERCENTAGE_CHANGE'];

/** Every field the spec's conditions read, under every value its sweep tries: to fetch only those columns. */
export function specFields(spec: StrategySpec): Field[] {
  const fields = new Set<Field>();
  const axes = sweepAxes(spec);
  // a field depends on one parameter at a time: each axis's values with the other axes at their first
  const settings: (Setting | undefined)[] = [undefined];
  axes.forEach((axis, i) => {
    for (const v of axis.candidates)
      settings.push(
        settingOf(
          spec,
          axes.map((a, j) => (j === i ? v : a.candidates[0])),
        ),
      );
  });
  for (const s of spec.strategies) {
    for (const setting of settings) {
      for (const side of ['buy', 'sell'] as const)
        for (const code of sideCodes(s, side, setting)) compileExpression(code).fields.forEach((f) => fields.add(f));
    }
  }
  // the engine reads the day's range for intrabar exits and its volume for a cap; a portfolio ranks by a field
  if (spec.exits?.fill === 'intrabar') fields.add('HIGH').add('LOW');
  if (spec.dayRules?.volumeCap) fields.add('VOLUME');
  if (spec.exits || spec.dayRules || spec.portfolio) fields.add('OPEN').add('CLOSE');
  const rank = spec.portfolio?.top?.by.toUpperCase();
  if (rank && (RANKABLE_FIELDS as readonly string[]).includes(rank)) fields.add(rank as Field);
  return [...fields];
}
