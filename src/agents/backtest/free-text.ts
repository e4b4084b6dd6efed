// A strategy in plain words, read without an LLM: tickers, window and KPI by
// pattern, indicators by BM25 over the rule library. It only runs what it can
// read exactly; anything it cannot place (a number, a missing side) makes it
// answer with its reading in the rule syntax instead, for the user to confirm.
import { factorNamed, searchRules } from '../../backtest/factor-search.js';
import { DEFAULT_KPI, type KpiName } from '../../backtest/kpis.js';
import { loadLibrary, resolveParams, type Rule } from '../../backtest/library.js';
import type { Condition, StrategySpec } from '../../backtest/spec.js';
import { conditionSyntax, specToSyntax } from '../../backtest/spec-to-syntax.js';
import { rulesAssumptions } from '../../backtest/rules-words.js';
import { ALL_TICKERS, HOLD_ALWAYS } from '../../backtest/spec.js';
import { asksForShort, notUsedLine, SHORT_REFUSAL } from './trader-words.js';

export interface OfflineReading {
  spec?: StrategySpec;
  /** the reading as a rule-syntax line the user can send (or edit) */
  ruleSyntax: string;
  /** what the text lacks or what could not be read exactly */
  problems: string[];
  /** the request cannot be run as asked whatever is added (short selling): the problems say why */
  refused?: boolean;
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

/** Exits, a volume cap, position sizing, a portfolio's calendar, and the tearsheet, read from the words; the text without them. */
function readTraderWords(text: string): { rest: string; found: TraderReading } {
  const found: TraderReading = {};
  let rest = text;
  const take = (re: RegExp, f: (m: RegExpExecArray) => void) => {
    const m = re.exec(rest);
    if (m) {
      f(m);
      rest = rest.replace(m[0], ' ');
    }
  };
  const PCT = String.raw`\s*(?:of|at|=|:)?\s*(\d+(?:\.\d+)?)\s*%`;
  take(new RegExp(String.raw`\btrailing[- ]stop(?:[- ]loss)?` + PCT, 'i'), (m) => (found.trailingStop = Number(m[1]) / 100));
  take(new RegExp(String.raw`\bstop[- ]?loss` + PCT, 'i'), (m) => (found.stopLoss = Number(m[1]) / 100));
  take(new RegExp(String.raw`\btake[- ]?profits?` + PCT, 'i'), (m) => (found.takeProfit = Number(m[1]) / 100));
  take(/\b(\d+(?:\.\d+)?)\s*% of (?:the )?(?:day'?s |daily )?volume\b/i, (m) => (found.volumeCap = Number(m[1]) / 100));
  // position sizing: a fraction of the equity ("half the capital", "30% of equity", "invest 30%", "position size 20%")
  const HOLDINGS = String.raw`(?:the |my |our )?(?:capital|money|cash|equity|account)`;
  take(
    new RegExp(String.raw`\b(?:with |using |invest(?:ing)? )?half (?:of )?` + HOLDINGS + String.raw`\b`, 'i'),
    () => (found.invest = 0.5),
  );
  take(
    new RegExp(String.raw`\b(?:invest(?:ing)?\s+|using\s+)?(\d+(?:\.\d+)?)\s*% of ` + HOLDINGS + String.raw`\b`, 'i'),
    (m) => (found.invest = Number(m[1]) / 100),
  );
  take(
    /\b(?:invest(?:ing)?|position[- ]siz(?:e|ing)(?:\s+of)?|size each (?:trade|entry|position) at)\s*(\d+(?:\.\d+)?)\s*%/i,
    (m) => (found.invest = Number(m[1]) / 100),
  );
  take(/\b(\d+(?:\.\d+)?)\s*% (?:per|a|each) (?:trade|entry|position|buy)\b/i, (m) => (found.invest = Number(m[1]) / 100));
  // or a fixed amount a trade: "100,000 yuan per trade", "100k per entry", "invest 50000 yuan each trade"
  take(
    /\b(?:invest(?:ing)?\s+)?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k|m)?\s*(?:yuan|rmb|cny)?\s+(?:per|a|each|for each) (?:trade|entry|position|buy)\b/i,
    (m) => (found.amount = Number(m[1].replace(/,/g, '')) * (m[2] ? (m[2].toLowerCase() === 'k' ? 1_000 : 1_000_000) : 1)),
  );
  // the exchange's price limits, on request without costs too
  if (/\bprice limits?\b|\blimit[- ]?(up|down)\b/i.test(rest)) found.limits = true;
  rest = rest.replace(/\b(price limits?|limit[- ]?(up|down))( rules?)?\b/gi, ' ');
  // what is not available is named (trader-words.ts); its numbers are taken out, so that the rest of the request runs
  rest = rest.replace(/\b(?:with |using |at )?(?:\d+(?:\.\d+)?\s*x\s+leverage|leverage (?:of )?\d+(?:\.\d+)?\s*x?)\b/gi, ' leverage ');
  rest = rest.replace(
    /\bhold(?:ing)? (?:it |them |positions? )?(?:for )?(?:at most|no more than|up to|max(?:imum)?|for) \d+ (?:trading )?(?:days?|weeks?|bars?)\b|\b(?:exit|sell) after \d+ (?:trading )?(?:days?|weeks?|bars?)\b/gi,
    ' ',
  );
  rest = rest.replace(
    /\b(?:dollar[- ]cost\w*(?: averag\w*)?|DCA|pyramid\w*|scal(?:e|ing) (?:in|out|into)|add(?:ing)? to (?:the |a |my )?position|averag(?:e|ing) down|on margin)\b/gi,
    ' ',
  );
  if (/\btear ?sheet\b|\bmonthly returns\b|\brolling sharpe\b|\bmonte carlo\b/i.test(rest)) found.tearsheet = true;
  rest = rest.replace(/\bmonthly returns\b|\brolling sharpe\b/gi, ' ');
  take(
    /\b(?:rebalanc\w*\s+)?(monthly|quarterly)(?:\s+rebalanc\w*)?\b/i,
    (m) => (found.rebalance = m[1].toLowerCase() as 'monthly' | 'quarterly'),
  );
  // "the 20 stocks with the highest amount", "top 10 by volume": a portfolio of the whole market's top N on the first day
  take(
    /\b(?:the\s+)?(?:top\s+)?(\d{1,4})\s+(?:stocks?|tickers?|shares|names|companies)?\s*(?:with\s+the\s+|by\s+)(?:(highest|largest|biggest|most|lowest|smallest)\s+)?(amount traded|amount|turnover|volume|closing price|close|price|open)\b/i,
    (m) =>
      (found.top = {
        n: Number(m[1]),
        by: TOP_FIELDS[m[3].toLowerCase()],
        order: /lowest|smallest/i.test(m[2] ?? '') ? 'lowest' : 'highest',
      }),
  );
  if (found.top || /\bportfolio\b|\bbasket\b/i.test(rest)) found.portfolio = true;
  // the words themselves are not indicators: left in, they would split the text into a sell side
  rest = rest.replace(/\b(trailing[- ]stop|stop[- ]?loss|take[- ]?profits?|portfolio|basket|rebalanc\w*|tear ?sheet|monte carlo)\b/gi, ' ');
  return { rest, found };
}

/** The fields a portfolio's top N is ranked by, as a trader names them. */
const TOP_FIELDS: Record<string, string> = {
  'amount traded': 'AMOUNT',
  amount: 'AMOUNT',
  turnover: 'AMOUNT',
  volume: 'VOLUME',
  'closing price': 'CLOSE',
  close: 'CLOSE',
  price: 'CLOSE',
  open: 'OPEN',
};

interface TraderReading {
  stopLoss?: number;
  takeProfit?: number;
  trailingStop?: number;
  volumeCap?: number;
  limits?: boolean;
  invest?: number;
  amount?: number;
  rebalance?: 'monthly' | 'quarterly';
  portfolio?: boolean;
  top?: { n: number; by: string; order: 'highest' | 'lowest' };
  tearsheet?: boolean;
}

/** The spec's exits, day rules, sizing, portfolio and tearsheet from what readTraderWords found (a portfolio needs two tickers). */
function traderFields(f: TraderReading, tickers: string[]): Partial<StrategySpec> {
  const out: Partial<StrategySpec> = {};
  if (f.stopLoss !== undefined || f.takeProfit !== undefined || f.trailingStop !== undefined)
    out.exits = {
      ...(f.stopLoss !== undefined ? { stopLoss: f.stopLoss } : {}),
      ...(f.takeProfit !== undefined ? { takeProfit: f.takeProfit } : {}),
      ...(f.trailingStop !== undefined ? { trailingStop: f.trailingStop } : {}),
      fill: 'intrabar',
    };
  if (f.volumeCap !== undefined || f.limits)
    out.dayRules = { ...(f.limits ? { limits: true } : {}), ...(f.volumeCap !== undefined ? { volumeCap: f.volumeCap } : {}) };
  if (f.portfolio && (tickers.length >= 2 || f.top))
    out.portfolio = {
      rebalance: f.rebalance ?? 'monthly',
      invest: f.invest ?? 1,
      ...(f.amount !== undefined ? { amount: f.amount } : {}),
      ...(f.top ? { top: f.top } : {}),
    };
  // one ticker: each entry's size (several tickers compared: each run's)
  else if (f.amount !== undefined) out.positionSize = { amount: f.amount };
  else if (f.invest !== undefined) out.positionSize = { invest: f.invest };
  if (f.tearsheet || out.portfolio) out.tearsheet = true;
  return out;
}

/** The trader sections of the reading in the rule syntax (rule-syntax-trader.ts reads them). */
function traderSyntax(extra: Partial<StrategySpec>): string {
  const full = specToSyntax({
    task: 'metrics',
    tickers: ['X'],
    strategies: [],
    kpi: 'sharpe_ratio',
    capital: 1_000_000,
    sizing: 'lots',
    costs: 'none',
    ...extra,
  } as StrategySpec);
  const at = full.search(/\b(stop|take|trail|exit-fill|volume-cap|limits|top|weights|rebalance|drift|amount|invest|tearsheet):/);
  return at >= 0 ? full.slice(at) : '';
}

export function readOffline(text: string): OfflineReading {
  const original = text;
  const problems: string[] = [];
  const assumptions: string[] = [];
  if (asksForShort(text)) {
    // a line to fill with a long strategy, never the short one read as long
    const codes = [...new Set(text.match(/\b\d{6}\b/g) ?? [])];
    const ruleSyntax = `${codes.length > 1 ? `compare ${codes.join(',')}` : (codes[0] ?? 'CODE')} buy: ... sell: ...`;
    return { ruleSyntax, problems: [SHORT_REFUSAL], assumptions, refused: true };
  }
  const trader = readTraderWords(text);
  text = trader.rest;
  const codes = [...new Set(text.match(/\b\d{6}\b/g) ?? [])];
  // the top N of the whole market, unless the members are named
  const tickers = trader.found.top && !codes.length ? [ALL_TICKERS] : codes;
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
  // "sell with a trailing stop" leaves "sell with a" once the trader words are read: no sell rule was said
  const sellPart = sellAt >= 0 ? rest.slice(sellAt) : '';
  const sellText = /^[\s,.;]*((sell|exit|with|a|an|the|and|on|at|it|when|using|by)\b[\s,.;]*)*$/i.test(sellPart) ? '' : sellPart;

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

  const extra = traderFields(trader.found, tickers);
  // a portfolio without a buy rule holds its members
  const holdAll = !!extra.portfolio && !buyRule;
  if (holdAll)
    problems.splice(problems.indexOf('a buy condition naming an indicator I know (e.g. "RSI below 30", "MACD golden cross")'), 1);
  const buy = buyRule ? [ruleCondition(buyRule)] : holdAll ? [HOLD_ALWAYS] : [];
  const sell = sellRule ? [ruleCondition(sellRule)] : [];
  const task: StrategySpec['task'] = tickers.length > 1 && !extra.portfolio ? 'ticker_selection' : 'metrics';
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
    extra.portfolio
      ? `portfolio ${tickers[0] === ALL_TICKERS ? 'all' : tickers.join(',')}`
      : tickers.length > 1
        ? `compare ${tickers.join(',')}`
        : (tickers[0] ?? 'CODE'),
    window,
    holdAll ? '' : `buy: ${buy.length ? buy.map((c) => conditionSyntax(c)).join(' and ') : '...'}`,
    sell.length ? `sell: ${sell.map((c) => conditionSyntax(c)).join(' and ')}` : '',
    `kpi: ${chosenKpi.split('_')[0]}`,
    withCosts ? 'costs: china' : '',
    traderSyntax(extra),
  ]
    .filter(Boolean)
    .join(' ');

  if (problems.length) {
    const missed = notUsedLine(original, {
      task,
      tickers,
      kpi: chosenKpi,
      capital: 1_000_000,
      sizing: 'lots',
      costs: 'none',
      strategies: [],
      ...extra,
    });
    return { ruleSyntax, problems: missed ? [...problems, missed] : problems, assumptions };
  }
  const spec: StrategySpec = {
    task,
    tickers,
    ...(start ? { start, end } : {}),
    kpi: chosenKpi,
    capital: 1_000_000,
    sizing: 'lots',
    costs: withCosts ? 'china' : 'none',
    strategies: [{ name: 'A', buy, sell }],
    ...extra,
  };
  // every rule applied is said; every trader word not applied is named
  assumptions.push(...rulesAssumptions(spec));
  const notUsed = notUsedLine(original, spec);
  if (notUsed) assumptions.push(notUsed);
  return { ruleSyntax, problems, assumptions, spec };
}

/** Does the text name any indicator of the library? (For routing: backtest or not.) */
export function mentionsIndicator(text: string): boolean {
  return loadLibrary().factors.some((f) => factorNamed(text, f.id));
}
