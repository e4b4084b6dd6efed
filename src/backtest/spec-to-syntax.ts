// A strategy spec written back as a rule-syntax line (the inverse of
// rule-syntax.ts for the conditions it can express): used by the evaluation to
// state tasks, and by the offline reader to show its reading.
import { loadLibrary } from './library.js';
import {
  ALL_TICKERS,
  holdsAlways,
  sweepAxes,
  type Condition,
  type FactorRef,
  type Side,
  type StrategySpec,
  type SweepAxis,
  type TermPlace,
} from './spec.js';

const KPI_WORD: Record<StrategySpec['kpi'], string> = {
  return_ratio: 'return',
  max_drawdown: 'drawdown',
  volatility: 'volatility',
  sharpe_ratio: 'sharpe',
  win_rate: 'winrate',
  profit_loss_ratio: 'plr',
  calmar_ratio: 'calmar',
};

/** A sweep's values as written: "6..24 step 2" when evenly spaced (3 or more), else "6|14|24". */
function valuesSyntax(values: readonly number[]): string {
  const step = values.length > 2 ? values[1] - values[0] : 0;
  const even = step > 0 && values.every((v, i) => Math.abs(v - (values[0] + i * step)) < 1e-9);
  if (!even) return values.join('|');
  return `${values[0]}..${values.at(-1)}${step === 1 ? '' : ` step ${Number(step.toPrecision(12))}`}`;
}

type Axes = Pick<StrategySpec, 'parameter' | 'secondParameter'>;

function term(ref: FactorRef, axes: Axes, place?: TermPlace): string {
  const factor = loadLibrary().factor(ref.factor)!;
  if (!factor.params.length) return factor.id;
  const here = (t: TermPlace) => place && t.side === place.side && t.condition === place.condition && t.operand === place.operand;
  const args = factor.params.map((p) => {
    const axis = sweepAxes(axes).find(
      (a) => !('threshold' in a) && a.factor.toUpperCase() === factor.id && a.param === p.name && (!a.terms || a.terms.some(here)),
    );
    if (axis) return valuesSyntax(axis.candidates);
    return String(ref.params?.[p.name] ?? p.default);
  });
  return `${factor.id}(${args.join(',')})`;
}

/** One condition as rule syntax; with a spec's sweep, its varied values as lists or ranges where they apply. */
export function conditionSyntax(c: Condition, axes: Axes = {}, at?: { side: Side; condition: number }): string {
  const threshold = at
    ? sweepAxes(axes).find((a) => 'threshold' in a && a.threshold.side === at.side && a.threshold.condition === at.condition)
    : undefined;
  const left = at && { ...at, operand: 'left' as const };
  const right = at && { ...at, operand: 'right' as const };
  switch (c.type) {
    case 'rule': {
      const rule = loadLibrary().rules.find((r) => r.id === c.rule.toUpperCase())!;
      const varied = (a: SweepAxis) =>
        !('threshold' in a) &&
        a.factor.toUpperCase() === rule.factor.toUpperCase() &&
        a.terms?.some((t) => left && t.side === left.side && t.condition === left.condition);
      if (!threshold && !sweepAxes(axes).some(varied)) return c.rule;
      // a rule with its threshold or parameter varied is written out as its comparison
      const limit = threshold ? valuesSyntax(threshold.candidates) : rule.threshold;
      return `${term({ factor: rule.factor, params: rule.params }, axes, left)} ${rule.op} ${limit}`;
    }
    case 'compare': {
      const r = typeof c.right !== 'number' ? term(c.right, axes, right) : threshold ? valuesSyntax(threshold.candidates) : c.right;
      return `${term(c.left, axes, left)} ${c.op} ${r}`;
    }
    case 'cross':
      return `${term(c.left, axes, left)} crosses ${c.direction} ${term(c.right, axes, right)}`;
    case 'event':
      return term(c.event, axes, left);
    case 'expression':
      return `{${c.code}}`;
  }
}

export function specToSyntax(spec: StrategySpec): string {
  const tickers = spec.portfolio
    ? `portfolio ${spec.tickers[0] === ALL_TICKERS ? 'all' : spec.tickers.join(',')}`
    : spec.tickers[0] === ALL_TICKERS
      ? 'compare all'
      : spec.task === 'ticker_selection'
        ? `compare ${spec.tickers.join(',')}`
        : spec.tickers[0];
  const window = spec.start && spec.end ? `${spec.start}..${spec.end}` : '';
  const strategies = spec.strategies.map((s) => {
    const side = (name: Side) => s[name].map((c, condition) => conditionSyntax(c, spec, { side: name, condition })).join(' and ');
    if (holdsAlways(s)) return '';
    const body = [`buy: ${side('buy')}`];
    if (s.sell.length) body.push(`sell: ${side('sell')}`);
    return spec.strategies.length > 1 ? `strategy ${s.name} ${body.join(' ')}` : body.join(' ');
  });
  const options = [`kpi: ${KPI_WORD[spec.kpi]}`];
  if (spec.capital !== 1_000_000) options.push(`capital: ${spec.capital}`);
  if (spec.sizing !== 'lots') options.push(`sizing: ${spec.sizing}`);
  if (spec.costs !== 'none') options.push(`costs: ${spec.costs}`);
  if (spec.slippageBps !== undefined) options.push(`slippage: ${spec.slippageBps}bps`);
  if (spec.walkForward !== undefined) options.push(`walk-forward: ${Number((spec.walkForward * 100).toFixed(2))}%`);
  options.push(...traderSyntax(spec));
  return [tickers, window, ...strategies, ...options].filter(Boolean).join(' ');
}

const percent = (f: number) => `${Number((f * 100).toFixed(4))}%`;

/** The exits, day rules, position sizing, portfolio and tearsheet sections of a spec (rule-syntax-trader.ts reads them back). */
function traderSyntax(spec: StrategySpec): string[] {
  const out: string[] = [];
  const { exits, dayRules, portfolio: p } = spec;
  if (exits?.stopLoss) out.push(`stop: ${percent(exits.stopLoss)}`);
  if (exits?.takeProfit) out.push(`take: ${percent(exits.takeProfit)}`);
  if (exits?.trailingStop) out.push(`trail: ${percent(exits.trailingStop)}`);
  if (exits) out.push(`exit-fill: ${exits.fill.replace('_', '-')}`);
  if (dayRules?.limits) out.push('limits: on');
  if (dayRules?.volumeCap) out.push(`volume-cap: ${percent(dayRules.volumeCap)}`);
  if (spec.positionSize?.invest !== undefined) out.push(`invest: ${percent(spec.positionSize.invest)}`);
  else if (spec.positionSize?.amount !== undefined) out.push(`amount: ${spec.positionSize.amount}`);
  if (p) {
    if (p.top) out.push(`top: ${p.top.n} by ${p.top.order === 'lowest' ? 'lowest ' : ''}${p.top.by.toLowerCase()}`);
    if (p.weights) out.push(`weights: ${p.weights.join(',')}`);
    out.push(`rebalance: ${p.rebalance}`);
    if (p.drift) out.push(`drift: ${percent(p.drift)}`);
    if (p.amount !== undefined) out.push(`amount: ${p.amount}`);
    else if (p.invest !== 1) out.push(`invest: ${percent(p.invest)}`);
  }
  if (spec.tearsheet && !p) out.push('tearsheet: on');
  return out;
}
