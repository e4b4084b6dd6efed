// A strategy spec written back as a rule-syntax line (the inverse of
// rule-syntax.ts for the conditions it can express): used by the evaluation to
// state tasks, and by the offline reader to show its reading.
import { loadLibrary } from './library.js';
import { ALL_TICKERS, type Condition, type FactorRef, type StrategySpec } from './spec.js';

const KPI_WORD: Record<StrategySpec['kpi'], string> = {
  return_ratio: 'return',
  max_drawdown: 'drawdown',
  volatility: 'volatility',
  sharpe_ratio: 'sharpe',
  win_rate: 'winrate',
  profit_loss_ratio: 'plr',
  calmar_ratio: 'calmar',
};

function term(ref: FactorRef, parameter: StrategySpec['parameter']): string {
  const factor = loadLibrary().factor(ref.factor)!;
  if (!factor.params.length) return factor.id;
  const args = factor.params.map((p) => {
    if (parameter && parameter.factor.toUpperCase() === factor.id && parameter.param === p.name) return parameter.candidates.join('|');
    return String(ref.params?.[p.name] ?? p.default);
  });
  return `${factor.id}(${args.join(',')})`;
}

export function conditionSyntax(c: Condition, parameter?: StrategySpec['parameter']): string {
  switch (c.type) {
    case 'rule':
      return c.rule;
    case 'compare':
      return `${term(c.left, parameter)} ${c.op} ${typeof c.right === 'number' ? c.right : term(c.right, parameter)}`;
    case 'cross':
      return `${term(c.left, parameter)} crosses ${c.direction} ${term(c.right, parameter)}`;
    case 'event':
      return term(c.event, parameter);
    case 'expression':
      return `{${c.code}}`;
  }
}

export function specToSyntax(spec: StrategySpec): string {
  const tickers =
    spec.tickers[0] === ALL_TICKERS
      ? 'compare all'
      : spec.task === 'ticker_selection'
        ? `compare ${spec.tickers.join(',')}`
        : spec.tickers[0];
  const window = spec.start && spec.end ? `${spec.start}..${spec.end}` : '';
  const strategies = spec.strategies.map((s) => {
    const body = [`buy: ${s.buy.map((c) => conditionSyntax(c, spec.parameter)).join(' and ')}`];
    if (s.sell.length) body.push(`sell: ${s.sell.map((c) => conditionSyntax(c, spec.parameter)).join(' and ')}`);
    return spec.strategies.length > 1 ? `strategy ${s.name} ${body.join(' ')}` : body.join(' ');
  });
  const options = [`kpi: ${KPI_WORD[spec.kpi]}`];
  if (spec.capital !== 1_000_000) options.push(`capital: ${spec.capital}`);
  if (spec.sizing !== 'lots') options.push(`sizing: ${spec.sizing}`);
  return [tickers, window, ...strategies, ...options].filter(Boolean).join(' ');
}
