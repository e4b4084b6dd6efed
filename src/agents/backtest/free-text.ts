// A strategy in plain words, read without an LLM: tickers, window and KPI by
// pattern, indicators by BM25 over the rule library. It only runs what it can
// read exactly; anything it cannot place (a number, a missing side) makes it
// answer with its reading in the rule syntax instead, for the user to confirm.
import { factorNamed, searchRules } from '../../backtest/factor-search.js';
import { DEFAULT_KPI, type KpiName } from '../../backtest/kpis.js';
import { loadLibrary, resolveParams, type Rule } from '../../backtest/library.js';
import type { Condition, StrategySpec } from '../../backtest/spec.js';
import { conditionSyntax } from '../../backtest/spec-to-syntax.js';

export interface OfflineReading {
  spec?: StrategySpec;
  /** the reading as a rule-syntax line the user can send (or edit) */
  ruleSyntax: string;
  /** what the text lacks or what could not be read exactly */
  problems: string[];
  assumptions: string[];
}

const KPI_PATTERNS: [RegExp, KpiName][] = [
  [/sharpe/i, 'sharpe_ratio'],
  [/draw\s*-?down/i, 'max_drawdown'],
  [/volatil/i, 'volatility'],
  [/win(ning)?\s*rate/i, 'win_rate'],
  [/profit.?(and|\/|-)?.?loss|p\/l|plr/i, 'profit_loss_ratio'],
  [/calmar/i, 'calmar_ratio'],
  [/return|profit|gain/i, 'return_ratio'],
];

function ruleCondition(rule: Rule): Condition {
  const factor = loadLibrary().factor(rule.factor)!;
  const params = rule.params ? resolveParams(factor, rule.params) : resolveParams(factor);
  const left = { factor: factor.id, params };
  if (factor.kind === 'event') return { type: 'event', event: left };
  return { type: 'compare', left, op: rule.op, right: rule.threshold };
}

export function readOffline(text: string): OfflineReading {
  const problems: string[] = [];
  const assumptions: string[] = [];
  const tickers = [...new Set(text.match(/\b\d{6}\b/g) ?? [])];
  let rest = text.replace(/\b\d{6}\b/g, ' ');

  let start: string | undefined;
  let end: string | undefined;
  const dates = rest.match(/\b(19|20)\d{2}-\d{2}-\d{2}\b/g) ?? [];
  if (dates.length >= 2) [start, end] = [dates[0], dates[1]];
  rest = rest.replace(/\b(19|20)\d{2}-\d{2}-\d{2}\b/g, ' ');
  const years = (rest.match(/\b(19|20)\d{2}\b/g) ?? []).map(Number).sort();
  if (!start && years.length) [start, end] = [`${years[0]}-01-01`, `${years[years.length - 1]}-12-31`];
  rest = rest.replace(/\b(19|20)\d{2}\b/g, ' ');
  if (!start) assumptions.push('window: all available data');

  // "with costs", "after fees", "with A-share costs": the china execution model; "no costs": the protocol's
  const withCosts =
    /\b(with|after|including|incl\.?)\s+(a-share\s+|china\s+|real\s+|trading\s+)?(costs|fees|commissions?)\b|\bcosts:\s*china\b/i.test(
      rest,
    );
  rest = rest.replace(
    /\b(with|after|including|incl\.?)\s+(a-share\s+|china\s+|real\s+|trading\s+)?(costs|fees|commissions?)\b|\bcosts:\s*china\b/gi,
    ' ',
  );
  if (withCosts) assumptions.push('costs: china (A-share commission, stamp duty, transfer fee and price limits)');
  const kpi = KPI_PATTERNS.find(([re]) => re.test(rest))?.[1];
  const sellAt = rest.search(/\bsell|\bexit|\btake profit|\bstop/i);
  const buyText = sellAt >= 0 ? rest.slice(0, sellAt) : rest;
  const sellText = sellAt >= 0 ? rest.slice(sellAt) : '';

  const pick = (part: string, side: 'buy' | 'sell') => searchRules(part, side).find((m) => m.confident)?.rule;
  const buyRule = pick(buyText, 'buy');
  const sellRule = sellText ? pick(sellText, 'sell') : undefined;
  if (!tickers.length) problems.push('a ticker (its 6-digit code, e.g. 600519)');
  if (!buyRule) problems.push('a buy condition naming an indicator I know (e.g. "RSI below 30", "MACD golden cross")');
  if (sellText && !sellRule) problems.push('the sell condition: I could not match it to an indicator');

  // Numbers left in the text must be the ones the chosen rules use; otherwise reading them needs an LLM.
  const used = new Set<number>();
  for (const rule of [buyRule, sellRule]) {
    if (!rule) continue;
    used.add(Math.abs(rule.threshold));
    const factor = loadLibrary().factor(rule.factor)!;
    for (const v of Object.values(resolveParams(factor, rule.params))) used.add(v);
  }
  const strays = (rest.match(/-?\d+(\.\d+)?/g) ?? []).map((n) => Math.abs(Number(n))).filter((n) => !used.has(n));
  if (strays.length)
    problems.push(
      `the number${strays.length > 1 ? 's' : ''} ${[...new Set(strays)].join(', ')}: without an LLM I cannot tell what ${strays.length > 1 ? 'they set' : 'it sets'}`,
    );

  const buy = buyRule ? [ruleCondition(buyRule)] : [];
  const sell = sellRule ? [ruleCondition(sellRule)] : [];
  const task: StrategySpec['task'] = tickers.length > 1 ? 'ticker_selection' : 'metrics';
  const chosenKpi = kpi ?? DEFAULT_KPI;
  if (!kpi) assumptions.push(`kpi: ${chosenKpi.replace('_', ' ')} (not named)`);
  if (buyRule) assumptions.push(`buy: ${buyRule.description} (library rule ${buyRule.id})`);
  if (sellRule) assumptions.push(`sell: ${sellRule.description} (library rule ${sellRule.id})`);
  else if (!sellText) assumptions.push('no sell rule: the position is held to the last day');

  const window =
    start && end
      ? start.slice(5) === '01-01' && end.slice(5) === '12-31'
        ? start.slice(0, 4) === end.slice(0, 4)
          ? start.slice(0, 4)
          : `${start.slice(0, 4)}..${end.slice(0, 4)}`
        : `${start}..${end}`
      : '';
  const ruleSyntax = [
    tickers.length > 1 ? `compare ${tickers.join(',')}` : (tickers[0] ?? 'CODE'),
    window,
    `buy: ${buy.length ? buy.map((c) => conditionSyntax(c)).join(' and ') : '...'}`,
    sell.length ? `sell: ${sell.map((c) => conditionSyntax(c)).join(' and ')}` : '',
    `kpi: ${chosenKpi.split('_')[0]}`,
    withCosts ? 'costs: china' : '',
  ]
    .filter(Boolean)
    .join(' ');

  if (problems.length) return { ruleSyntax, problems, assumptions };
  return {
    ruleSyntax,
    problems,
    assumptions,
    spec: {
      task,
      tickers,
      ...(start ? { start, end } : {}),
      kpi: chosenKpi,
      capital: 1_000_000,
      sizing: 'lots',
      costs: withCosts ? 'china' : 'none',
      strategies: [{ name: 'A', buy, sell }],
    },
  };
}

/** Does the text name any indicator of the library? (For routing: backtest or not.) */
export function mentionsIndicator(text: string): boolean {
  return loadLibrary().factors.some((f) => factorNamed(text, f.id));
}
