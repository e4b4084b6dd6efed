// The strategy spec: everything one backtest request means, as data. The rule
// syntax and the LLM both produce it; the engine only ever runs it. zod checks
// its shape, `checkSpec` the things a shape cannot say (task vs. tickers...).
import { z } from 'zod';
import { KPI_NAMES } from './kpis.js';
import { instantiate, loadLibrary, type Factor } from './library.js';
import { UserError } from '../core/errors.js';
import { EXECUTION_MODELS } from './execution-model.js';

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

export const TASKS = ['metrics', 'ticker_selection', 'parameter_confirmation', 'strategy_selection'] as const;
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');

export const strategySpecSchema = z.object({
  task: z.enum(TASKS),
  tickers: z.array(z.string().min(1)).min(1, 'name at least one ticker (code or company name)'),
  start: isoDate.optional(),
  end: isoDate.optional(),
  strategies: z.array(strategySchema).min(1),
  kpi: z.enum(KPI_NAMES),
  parameter: z
    .object({ factor: z.string(), param: z.string(), candidates: z.array(z.number()).min(2) })
    .optional()
    .describe('parameter confirmation: one parameter of one factor, the values to try'),
  capital: z.number().positive().default(1_000_000),
  sizing: z.enum(['lots', 'shares']).default('lots'),
  /** the execution model: the protocol's zero-cost lab setting, or the A-share costs and rules (execution-model.ts) */
  costs: z.enum(EXECUTION_MODELS).default('none'),
  /** slippage against the open (buys) and close (sells), in basis points; only with costs: china (default: its fixture's) */
  slippageBps: z.number().min(0).max(1_000).optional(),
  /** a walk-forward check of a best-parameter or best-strategy run: the share of the trading days in sample */
  walkForward: z.number().min(0.5).max(0.9).optional(),
});

/** `compare all ...`: every ticker of the database. */
export const ALL_TICKERS = '*';

export type FactorRef = z.infer<typeof factorRefSchema>;
export type Condition = z.infer<typeof conditionSchema>;
export type Strategy = z.infer<typeof strategySchema>;
export type StrategySpec = z.infer<typeof strategySpecSchema>;
export type Task = (typeof TASKS)[number];

/** Problems with a spec's meaning, each a sentence for the user. */
export function checkSpec(spec: StrategySpec): string[] {
  const problems: string[] = [];
  const lib = loadLibrary();
  const { task, tickers, strategies } = spec;
  const everyTicker = tickers.length === 1 && tickers[0] === ALL_TICKERS;
  if (everyTicker && task !== 'ticker_selection') problems.push('"all" tickers only makes sense for ticker selection (compare all ...)');
  if (task === 'ticker_selection' && tickers.length < 2 && !everyTicker)
    problems.push('ticker selection needs at least two tickers to compare');
  if (task !== 'ticker_selection' && tickers.length > 1)
    problems.push(`${task.replace('_', ' ')} runs on one ticker; ${tickers.length} were given`);
  if (task === 'strategy_selection' && strategies.length < 2) problems.push('strategy selection needs at least two strategies (A, B, ...)');
  if (task !== 'strategy_selection' && strategies.length > 1)
    problems.push(`${task.replace('_', ' ')} runs one strategy; ${strategies.length} were given`);
  if (task === 'parameter_confirmation' && !spec.parameter)
    problems.push('parameter confirmation needs the parameter to vary and its candidate values');
  if (task !== 'parameter_confirmation' && spec.parameter)
    problems.push('candidate parameter values only make sense for parameter confirmation');
  if (spec.walkForward !== undefined && task !== 'parameter_confirmation' && task !== 'strategy_selection')
    problems.push('a walk-forward checks a pick: it needs several parameter values (RSI(6|14|24)) or strategies (A, B) to pick from');
  if (spec.start && spec.end && spec.start > spec.end) problems.push(`the window starts (${spec.start}) after it ends (${spec.end})`);
  if (spec.parameter) {
    const f = lib.factor(spec.parameter.factor);
    if (!f) problems.push(`unknown factor ${spec.parameter.factor}`);
    else if (!f.params.some((p) => p.name === spec.parameter!.param)) {
      problems.push(`${f.id} has no parameter "${spec.parameter.param}" (it takes ${f.params.map((p) => p.name).join(', ') || 'none'})`);
    }
  }
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

function factorOf(ref: FactorRef): Factor {
  const factor = loadLibrary().factor(ref.factor);
  if (!factor) throw new UserError(`unknown factor "${ref.factor}"`);
  return factor;
}

/** The short code of a factor reference, with an optional parameter override from a parameter task. */
function refCode(ref: FactorRef, override?: { factor: string; param: string; value: number }): string {
  const factor = factorOf(ref);
  const params = { ...ref.params };
  if (override && override.factor.toUpperCase() === factor.id) params[override.param] = override.value;
  return instantiate(factor, params);
}

function refLabel(ref: FactorRef, override?: { factor: string; param: string; value: number }): string {
  const factor = factorOf(ref);
  const params = { ...ref.params };
  if (override && override.factor.toUpperCase() === factor.id) params[override.param] = override.value;
  const shown = factor.params.map((p) => params[p.name] ?? p.default);
  return shown.length ? `${factor.id}(${shown.join(',')})` : factor.id;
}

type Override = { factor: string; param: string; value: number } | undefined;

/** A condition as one factor expression (true on the days it holds). */
export function conditionCode(c: Condition, override?: Override): string {
  switch (c.type) {
    case 'rule': {
      const rule = loadLibrary().rules.find((r) => r.id === c.rule.toUpperCase());
      if (!rule) throw new UserError(`unknown rule "${c.rule}"`);
      return `(${refCode({ factor: rule.factor, params: rule.params }, override)}) ${rule.op} ${rule.threshold}`;
    }
    case 'compare': {
      const right = typeof c.right === 'number' ? String(c.right) : `(${refCode(c.right, override)})`;
      return `(${refCode(c.left, override)}) ${c.op} ${right}`;
    }
    case 'cross': {
      const a = `(${refCode(c.left, override)})`;
      const b = `(${refCode(c.right, override)})`;
      return c.direction === 'above' ? `${a} > ${b} && DELAY(${a},1) <= DELAY(${b},1)` : `${a} < ${b} && DELAY(${a},1) >= DELAY(${b},1)`;
    }
    case 'event':
      return `(${refCode(c.event, override)}) > 0`;
    case 'expression':
      return c.code;
  }
}

/** A condition in words, for answers: "RSI(14) < 30", "MA(5) crosses above MA(20)". */
export function conditionLabel(c: Condition, override?: Override): string {
  switch (c.type) {
    case 'rule': {
      const rule = loadLibrary().rules.find((r) => r.id === c.rule.toUpperCase());
      return rule
        ? `${refLabel({ factor: rule.factor, params: rule.params }, override)} ${rule.op} ${rule.threshold} (${rule.id})`
        : c.rule;
    }
    case 'compare':
      return `${refLabel(c.left, override)} ${c.op} ${typeof c.right === 'number' ? c.right : refLabel(c.right, override)}`;
    case 'cross':
      return `${refLabel(c.left, override)} crosses ${c.direction} ${refLabel(c.right, override)}`;
    case 'event':
      return refLabel(c.event, override);
    case 'expression':
      return `{${c.code}}`;
  }
}
