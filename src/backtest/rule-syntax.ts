// The rule syntax of /backtest: a whole strategy request in one line, no LLM.
//
//   600519 2022-01-01..2023-12-31 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: sharpe
//   compare 000001,600036,601318 2021 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: return
//   600519 2021 buy: RSI(6|14|24) < 30 sell: RSI(6|14|24) > 70 kpi: sharpe      (parameter confirmation)
//   600519 2021 buy: RSI(6..24 step 2) < 20..40 step 5 sell: RSI(6..24 step 2) > 70   (a grid of two parameters)
//   600519 2020..2022 strategy A buy: RSI_OVERSOLD sell: RSI_OVERBOUGHT strategy B buy: MACD_CROSS_UP kpi: calmar
//   600519 2021 buy: RSI(14) < 30 sell: RSI(14) > 70 stop: 8% trail: 12% exit-fill: intrabar volume-cap: 10% limits: on
//   600519 2021 buy: RSI(14) < 30 sell: RSI(14) > 70 invest: 50%      (or amount: 100,000: yuan per entry; the rest stays cash)
//   portfolio 600519,000001,600036 2020..2025 weights: 50,30,20 rebalance: monthly invest: 80% costs: china tearsheet: on
//   portfolio all 2020..2025 top: 20 by amount rebalance: quarterly drift: 5%          (no buy: every member is held)
//
// Errors name the bad token, its position, and the closest known names.
export { RuleSyntaxError } from './rule-syntax-error.js';
import { closest } from '../core/suggest.js';
import { RuleSyntaxError } from './rule-syntax-error.js';
import { compileExpression } from './expr/compile.js';
import { ExpressionError } from './expr/parser.js';
import { DEFAULT_KPI, KPI_NAMES, type KpiName } from './kpis.js';
import { loadLibrary, type Factor } from './library.js';
import {
  ALL_TICKERS,
  axisName,
  MAX_SWEEP_RUNS,
  type Condition,
  type FactorRef,
  type Side,
  type Strategy,
  type TermPlace,
  type StrategySpec,
  type SweepAxis,
  HOLD_ALWAYS,
  holdsAlways,
} from './spec.js';
import { readTraderSection, traderSpec, type TraderOptions } from './rule-syntax-trader.js';

const KPI_WORDS: Record<string, KpiName> = {
  return: 'return_ratio',
  returns: 'return_ratio',
  return_ratio: 'return_ratio',
  profit: 'return_ratio',
  drawdown: 'max_drawdown',
  max_drawdown: 'max_drawdown',
  mdd: 'max_drawdown',
  maxdd: 'max_drawdown',
  volatility: 'volatility',
  vol: 'volatility',
  sharpe: 'sharpe_ratio',
  sharpe_ratio: 'sharpe_ratio',
  winrate: 'win_rate',
  win_rate: 'win_rate',
  win: 'win_rate',
  plr: 'profit_loss_ratio',
  profit_loss: 'profit_loss_ratio',
  profit_loss_ratio: 'profit_loss_ratio',
  pl: 'profit_loss_ratio',
  calmar: 'calmar_ratio',
  calmar_ratio: 'calmar_ratio',
};

/** Does this text look like rule syntax (rather than a sentence for the LLM)? */
export function looksLikeRuleSyntax(text: string): boolean {
  return /\bbuy:/i.test(text) || /^\s*portfolio\s+\S+.*\b(rebalance|weights|top|invest|amount):/i.test(text);
}

interface Section {
  key: 'buy' | 'sell' | 'kpi' | 'capital' | 'sizing' | 'costs' | 'slippage' | 'walk-forward' | 'strategy' | TraderKey;
  /** for `strategy NAME` */
  name?: string;
  text: string;
  /** 1-based position of `text` in the input */
  at: number;
}

function splitSections(input: string): { header: string; sections: Section[] } {
  const marker =
    /\b(buy|sell|kpi|capital|sizing|costs|slippage|walk-?forward|stop(?:-loss)?|take(?:-profit)?|trail(?:ing)?(?:-stop)?|exit-fill|volume-cap|limits|rebalance|drift|weights|invest|amount|top|tearsheet|short|cover):|\bstrategy\s+([A-Za-z0-9_]+)\b/gi;
  const hits = [...input.matchAll(marker)];
  const header = hits.length ? input.slice(0, hits[0].index) : input;
  const sections = hits.map((m, i) => {
    const start = m.index! + m[0].length;
    const end = i + 1 < hits.length ? hits[i + 1].index! : input.length;
    const key = (m[1] ? sectionKey(m[1]) : 'strategy') as Section['key'];
    const leading = input.slice(start, end).length - input.slice(start, end).trimStart().length;
    return { key, name: m[2], text: input.slice(start, end).trim(), at: start + leading + 1 };
  });
  return { header, sections };
}

/** The sections a trader adds to a run (exits, day rules, a portfolio, the tearsheet), and the refused short side. */
type TraderKey =
  | 'stop'
  | 'take'
  | 'trail'
  | 'exit-fill'
  | 'volume-cap'
  | 'limits'
  | 'rebalance'
  | 'drift'
  | 'weights'
  | 'invest'
  | 'amount'
  | 'top'
  | 'tearsheet'
  | 'short';

function sectionKey(word: string): string {
  const w = word.toLowerCase();
  if (w === 'walkforward') return 'walk-forward';
  if (w.startsWith('stop')) return 'stop';
  if (w.startsWith('take')) return 'take';
  if (w.startsWith('trail')) return 'trail';
  if (w === 'cover') return 'short';
  return w;
}

/** Splits on `and` / `&&` outside parentheses and braces, keeping positions. */
function splitConditions(text: string, at: number): { text: string; at: number }[] {
  const parts: { text: string; at: number }[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '{') depth++;
    else if (ch === ')' || ch === '}') depth--;
    else if (depth === 0) {
      const m = /^(\s+and\s+|\s*&&\s*)/i.exec(text.slice(i));
      if (m && i > start) {
        parts.push({ text: text.slice(start, i), at: at + start });
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  parts.push({ text: text.slice(start), at: at + start });
  return parts.map((p) => ({ text: p.text.trim(), at: p.at + (p.text.length - p.text.trimStart().length) })).filter((p) => p.text);
}

interface Ctx {
  input: string;
  /** the lists of values written (RSI(6|14|24), < 20..40 step 5), in order: they become the sweep's axes */
  lists: { at: number; values: number[]; param?: { factor: string; param: string; place: TermPlace }; threshold?: Place }[];
  /** every factor term of strategy A, with its place: a list that every term of a factor repeats varies them all */
  terms: { factor: string; place: TermPlace; lists: Map<string, number[]> }[];
}

const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const RANGE = new RegExp(String.raw`^(${NUMBER})\s*\.\.\s*(${NUMBER})(?:\s+step\s+(${NUMBER}))?$`, 'i');
const decimals = (text: string) => text.split('.')[1]?.length ?? 0;

/** A value or a sweep's values: "14", "6|14|24", "6..24 step 2", "20..40" (step 1). A sentence when it is none of them. */
function parseValues(text: string, whole: boolean): number[] | string {
  const kind = whole ? 'whole number' : 'number';
  const range = RANGE.exec(text.trim());
  if (range) {
    const [from, to, step] = [range[1], range[2], range[3] ?? '1'];
    const [a, b, d] = [Number(from), Number(to), Number(step)];
    if (!(d > 0)) return `the step of ${text.trim()} must be above 0`;
    if (b <= a) return `the range ${text.trim()} must go up (${from}..${to} ends below its start)`;
    // the values on a decimal grid: 0.1 + 0.2 is not 0.3 in floating point
    const scale = 10 ** Math.max(decimals(from), decimals(step));
    const count = Math.floor((b - a) / d + 1e-9) + 1;
    if (count > MAX_SWEEP_RUNS)
      return `${text.trim()} is ${count.toLocaleString('en-US')} values; at most ${MAX_SWEEP_RUNS.toLocaleString('en-US')} (use a larger step)`;
    const values = Array.from({ length: count }, (_, i) => Math.round((a + i * d) * scale) / scale);
    if (whole && values.some((v) => !Number.isInteger(v))) return `${text.trim()} gives values that are not whole numbers`;
    return values;
  }
  const values = text.split('|').map((v) => (v.trim() && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v.trim()) : NaN));
  if (values.some((v) => Number.isNaN(v) || (whole && !Number.isInteger(v))))
    return `"${text.trim()}" is not a ${kind} (or ${kind}s separated by |, or a range such as 6..24 step 2)`;
  return values;
}

/**
 * The sweep's axes from the lists written. A parameter listed with the same values in every term of its factor is
 * one axis over all of them (RSI(6|14|24) < 30 ... RSI(6|14|24) > 70, the protocol's "one parameter of one
 * factor"); otherwise each list varies its own terms (MA(5..20 step 5) crosses above MA(30..60 step 10)). A
 * threshold list is an axis of its own. At most two.
 */
function sweepAxesOf(ctx: Ctx): SweepAxis[] {
  const axes: { at: number; axis: SweepAxis }[] = [];
  const grouped = new Map<string, { at: number; factor: string; param: string; values: number[]; places: TermPlace[] }>();
  for (const list of ctx.lists) {
    if (list.threshold) {
      axes.push({ at: list.at, axis: { threshold: list.threshold, candidates: list.values } });
      continue;
    }
    const { factor, param, place } = list.param!;
    const key = `${factor}.${param}=${list.values.join('|')}`;
    const group = grouped.get(key);
    if (group) group.places.push(place);
    else grouped.set(key, { at: list.at, factor, param, values: list.values, places: [place] });
  }
  for (const g of grouped.values()) {
    const terms = ctx.terms.filter((t) => t.factor === g.factor);
    const everyTerm = terms.every((t) => t.lists.get(g.param)?.join('|') === g.values.join('|'));
    axes.push({
      at: g.at,
      axis: { factor: g.factor, param: g.param, candidates: g.values, ...(everyTerm ? {} : { terms: g.places }) },
    });
  }
  axes.sort((x, y) => x.at - y.at);
  if (axes.length > 2) {
    const named = axes.map((a) => a.axis);
    throw new RuleSyntaxError(
      `a sweep varies at most two parameters (${named
        .slice(0, 2)
        .map((a) => axisName(a, named))
        .join(' and ')} already); fix ${axisName(named[2], named)} at one value`,
      axes[2].at,
      ctx.input,
    );
  }
  return axes.map((a) => a.axis);
}

function factorNames(): string[] {
  const lib = loadLibrary();
  return [...lib.factors.map((f) => f.id), ...lib.rules.map((r) => r.id)];
}

function findFactor(name: string): Factor | undefined {
  const lib = loadLibrary();
  const upper = name.toUpperCase();
  return lib.factor(upper) ?? lib.factors.find((f) => f.aliases.some((a) => a.toUpperCase().replace(/[\s-]+/g, '_') === upper));
}

const TERM = /^([A-Za-z_][A-Za-z0-9_%]*)\s*(?:\(([^()]*)\))?/;

function parseTerm(text: string, at: number, ctx: Ctx, place: TermPlace): { ref: FactorRef; factor: Factor; rest: string; restAt: number } {
  const m = TERM.exec(text);
  if (!m) throw new RuleSyntaxError(`expected a factor such as RSI(14) or MA(20), found "${text.split(/\s/)[0]}"`, at, ctx.input);
  const factor = findFactor(m[1]);
  if (!factor) {
    throw new RuleSyntaxError(`unknown factor "${m[1]}"; closest: ${closest(m[1], factorNames()).join(', ')}`, at, ctx.input);
  }
  const params: Record<string, number> = {};
  const lists = new Map<string, number[]>();
  ctx.terms.push({ factor: factor.id, place, lists });
  if (m[2] !== undefined && m[2].trim()) {
    const args = m[2].split(',');
    let offset = m[0].indexOf('(') + 1;
    args.forEach((raw, i) => {
      const argAt = at + offset + (raw.length - raw.trimStart().length);
      offset += raw.length + 1;
      const named = /^\s*([A-Za-z_]\w*)\s*=\s*(.+?)\s*$/.exec(raw);
      const paramName = named ? named[1] : factor.params[i]?.name;
      const valueText = (named ? named[2] : raw).trim();
      if (!paramName || !factor.params.some((p) => p.name === paramName)) {
        throw new RuleSyntaxError(
          `${factor.id} takes ${factor.params.length ? `the parameters ${factor.params.map((p) => p.name).join(', ')}` : 'no parameters'}`,
          argAt,
          ctx.input,
        );
      }
      const values = parseValues(valueText, true);
      if (typeof values === 'string') throw new RuleSyntaxError(values, argAt, ctx.input);
      if (values.length > 1) {
        ctx.lists.push({ at: argAt, values, param: { factor: factor.id, param: paramName, place } });
        lists.set(paramName, values);
      }
      params[paramName] = values[0];
    });
  }
  const rest = text.slice(m[0].length);
  return {
    ref: Object.keys(params).length ? { factor: factor.id, params } : { factor: factor.id },
    factor,
    rest: rest.trim(),
    restAt: at + m[0].length + (rest.length - rest.trimStart().length),
  };
}

/** Where a condition is: its side and place (a varied threshold is named by them). */
type Place = { side: Side; condition: number };

function parseCondition(text: string, at: number, ctx: Ctx, place: Place): Condition {
  if (text.startsWith('{')) {
    if (!text.endsWith('}')) throw new RuleSyntaxError('a raw expression must end with "}"', at + text.length - 1, ctx.input);
    const code = text.slice(1, -1);
    try {
      compileExpression(code);
    } catch (error) {
      if (error instanceof ExpressionError)
        throw new RuleSyntaxError(error.message.split(' at position')[0], at + error.position, ctx.input);
      throw error;
    }
    return { type: 'expression', code };
  }
  const rule = loadLibrary().rules.find((r) => r.id === text.toUpperCase());
  if (rule) {
    // a term of its factor that lists nothing: a list elsewhere varies only its own terms
    ctx.terms.push({ factor: rule.factor.toUpperCase(), place: { ...place, operand: 'left' }, lists: new Map() });
    return { type: 'rule', rule: rule.id };
  }

  const left = parseTerm(text, at, ctx, { ...place, operand: 'left' });
  if (!left.rest) {
    if (left.factor.kind === 'event') return { type: 'event', event: left.ref };
    throw new RuleSyntaxError(`${left.factor.id} needs a comparison, e.g. ${left.factor.id} > 0`, left.restAt, ctx.input);
  }
  const cross = /^crosses\s+(above|below)\s+/i.exec(left.rest);
  if (cross) {
    const right = parseTerm(left.rest.slice(cross[0].length), left.restAt + cross[0].length, ctx, { ...place, operand: 'right' });
    if (right.rest) throw new RuleSyntaxError(`unexpected "${right.rest}" (join conditions with "and")`, right.restAt, ctx.input);
    return { type: 'cross', left: left.ref, direction: cross[1].toLowerCase() as 'above' | 'below', right: right.ref };
  }
  const cmp = /^(>=|<=|>|<)\s*/.exec(left.rest);
  if (!cmp)
    throw new RuleSyntaxError(
      `expected >, <, >=, <= or "crosses above/below" after ${left.factor.id}, found "${left.rest.split(/\s/)[0]}"`,
      left.restAt,
      ctx.input,
    );
  const afterOp = left.rest.slice(cmp[0].length);
  const afterAt = left.restAt + cmp[0].length;
  if (/^-?\d/.test(afterOp)) {
    // a number, or a sweep's thresholds: 20|30|40, 20..40 step 5
    const values = parseValues(afterOp, false);
    if (typeof values === 'string') throw new RuleSyntaxError(values, afterAt, ctx.input);
    if (values.length > 1) ctx.lists.push({ at: afterAt, values, threshold: place });
    return { type: 'compare', left: left.ref, op: cmp[1] as '>' | '<' | '>=' | '<=', right: values[0] };
  }
  const right = parseTerm(afterOp, afterAt, ctx, { ...place, operand: 'right' });
  if (right.rest) throw new RuleSyntaxError(`unexpected "${right.rest}" (join conditions with "and")`, right.restAt, ctx.input);
  return { type: 'compare', left: left.ref, op: cmp[1] as '>' | '<' | '>=' | '<=', right: right.ref };
}

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

function parseWindow(token: string): { start: string; end: string } | undefined {
  let m = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(token);
  if (m) return { start: m[1], end: m[2] };
  m = /^(\d{4})(?:\.\.(\d{4}))?$/.exec(token);
  if (m && Number(m[1]) >= 1990 && Number(m[1]) <= 2100) return { start: `${m[1]}-01-01`, end: `${m[2] ?? m[1]}-12-31` };
  m = /^(\d{4})-(\d{2})(?:\.\.(\d{4})-(\d{2}))?$/.exec(token);
  if (m) {
    const [ey, em] = m[3] ? [Number(m[3]), Number(m[4])] : [Number(m[1]), Number(m[2])];
    return { start: `${m[1]}-${m[2]}-01`, end: `${ey}-${pad(em)}-${pad(lastDay(ey, em))}` };
  }
  return undefined;
}

function validDate(d: string): boolean {
  const t = Date.parse(`${d}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === d;
}

export interface ParsedRequest {
  spec: StrategySpec;
  /** choices the parser made that the user did not state */
  defaults: string[];
}

export function parseRuleSyntax(input: string): ParsedRequest {
  const { header, sections } = splitSections(input);
  const ctx: Ctx = { input, lists: [], terms: [] };
  const defaults: string[] = [];

  // header: [compare] tickers [window]
  const tokens = [...header.matchAll(/"([^"]+)"|(\S+)/g)].map((m) => ({
    text: m[1] ?? m[2],
    at: m.index! + 1,
    quoted: m[1] !== undefined,
  }));
  let compare = false;
  let portfolio = false;
  const tickers: string[] = [];
  let window: { start: string; end: string } | undefined;
  for (const tok of tokens) {
    if (!tok.quoted && tok.text.toLowerCase() === 'compare') {
      compare = true;
      continue;
    }
    if (!tok.quoted && !tickers.length && tok.text.toLowerCase() === 'portfolio') {
      portfolio = compare = true;
      continue;
    }
    if (!tok.quoted && compare && tok.text.toLowerCase() === 'all') {
      tickers.push(ALL_TICKERS);
      continue;
    }
    const w = tok.quoted ? undefined : parseWindow(tok.text);
    if (w) {
      if (window) throw new RuleSyntaxError('the window is given twice', tok.at, input);
      for (const d of [w.start, w.end]) if (!validDate(d)) throw new RuleSyntaxError(`${d} is not a real date`, tok.at, input);
      window = w;
      continue;
    }
    if (/^\d{4}-/.test(tok.text))
      throw new RuleSyntaxError(
        `"${tok.text}" is not a window; write 2022-01-01..2023-12-31, 2021, 2020..2022 or 2024-03..2024-09`,
        tok.at,
        input,
      );
    tickers.push(
      ...tok.text
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    );
  }
  if (!tickers.length) throw new RuleSyntaxError('name a ticker first, e.g. "600519 2022 buy: ..."', 1, input);
  if (!window) defaults.push('window: all available data');

  // strategies
  const strategies: Strategy[] = [];
  let current: Strategy | undefined;
  let kpi: KpiName | undefined;
  let capital: number | undefined;
  let sizing: 'lots' | 'shares' | undefined;
  let costs: StrategySpec['costs'] | undefined;
  let slippage: { bps: number; at: number } | undefined;
  let walkForward: number | undefined;
  const trader: TraderOptions = {};
  for (const s of sections) {
    if (s.key === 'strategy') {
      current = { name: s.name!, buy: [], sell: [] };
      strategies.push(current);
      if (s.text) throw new RuleSyntaxError(`expected "buy:" after strategy ${s.name}`, s.at, input);
      continue;
    }
    if (s.key === 'buy' || s.key === 'sell') {
      if (!current) {
        current = { name: 'A', buy: [], sell: [] };
        strategies.push(current);
      }
      if (!s.text) throw new RuleSyntaxError(`"${s.key}:" needs at least one condition`, s.at, input);
      const side = current[s.key];
      for (const c of splitConditions(s.text, s.at)) side.push(parseCondition(c.text, c.at, ctx, { side: s.key, condition: side.length }));
      continue;
    }
    if (s.key === 'kpi') {
      const word = s.text.toLowerCase().replace(/[\s-]+/g, '_');
      kpi = KPI_WORDS[word] ?? ((KPI_NAMES as readonly string[]).find((k) => k === word) as KpiName | undefined);
      if (!kpi)
        throw new RuleSyntaxError(
          `unknown KPI "${s.text}"; one of: return, drawdown, volatility, sharpe, winrate, plr, calmar`,
          s.at,
          input,
        );
      continue;
    }
    if (s.key === 'capital') {
      const n = Number(s.text.replace(/[,_]/g, ''));
      if (!Number.isFinite(n) || n <= 0)
        throw new RuleSyntaxError(`capital must be a positive amount of yuan, not "${s.text}"`, s.at, input);
      capital = n;
      continue;
    }
    if (s.key === 'sizing') {
      const v = s.text.toLowerCase();
      if (v !== 'lots' && v !== 'shares')
        throw new RuleSyntaxError(`sizing is "lots" (whole lots of 100, the default) or "shares"`, s.at, input);
      sizing = v;
      continue;
    }
    if (s.key === 'costs') {
      const v = s.text.toLowerCase();
      if (v !== 'none' && v !== 'china')
        throw new RuleSyntaxError(
          `costs is "china" (A-share commission, stamp duty, transfer fee and price limits) or "none" (the protocol's zero costs)`,
          s.at,
          input,
        );
      costs = v;
      continue;
    }
    if (s.key === 'slippage') {
      const m = /^(\d+(?:\.\d+)?)\s*(bps|bp|%)?$/i.exec(s.text);
      const bps = m ? Number(m[1]) * (m[2] === '%' ? 100 : 1) : NaN;
      if (!m || !(bps >= 0 && bps <= 1_000))
        throw new RuleSyntaxError(`slippage is basis points, e.g. "slippage: 5bps" (0 to 1000), not "${s.text}"`, s.at, input);
      slippage = { bps, at: s.at };
      continue;
    }
    if (readTraderSection(s, input, trader)) continue;
    if (s.key === 'walk-forward') {
      const m = /^(\d+(?:\.\d+)?)\s*%$/.exec(s.text);
      const share = m ? Number(m[1]) / 100 : NaN;
      if (!(share >= 0.5 && share <= 0.9))
        throw new RuleSyntaxError(
          `walk-forward is the share of the days picked on, 50% to 90%, e.g. "walk-forward: 70%", not "${s.text}"`,
          s.at,
          input,
        );
      walkForward = share;
    }
  }
  if (slippage && costs !== 'china')
    throw new RuleSyntaxError('slippage applies to "costs: china" only; add it, or drop the slippage', slippage.at, input);
  // invest: and amount: size a single run's entries too; these belong to a portfolio only
  const portfolioSections = (['rebalance', 'drift', 'weights', 'top'] as const).filter((k) => trader[k]);
  if (!portfolio && portfolioSections.length)
    throw new RuleSyntaxError(
      `"${portfolioSections[0]}:" belongs to a portfolio; start the line with "portfolio", e.g. "portfolio 600519,000001 2021 rebalance: monthly"`,
      trader[portfolioSections[0]]!.at,
      input,
    );
  if (portfolio && !strategies.length) {
    strategies.push({ name: 'A', buy: [HOLD_ALWAYS], sell: [] });
    defaults.push('no buy rule: every member is held, rebalanced to its weight');
  }
  if (!strategies.length) throw new RuleSyntaxError('no "buy:" conditions', input.length, input);
  const axes = sweepAxesOf(ctx);
  for (const s of strategies) {
    if (!s.buy.length)
      throw new RuleSyntaxError(`strategy ${s.name} has no "buy:" conditions`, input.indexOf(`strategy ${s.name}`) + 1, input);
    if (!s.sell.length && !holdsAlways(s)) defaults.push(`strategy ${s.name} has no sell rule: it holds until the last day`);
  }

  if (portfolio && (axes.length || strategies.length > 1))
    throw new RuleSyntaxError('a portfolio runs one strategy with fixed parameters; drop the lists (6|14) or the strategy B', 1, input);
  const task: StrategySpec['task'] = portfolio
    ? 'metrics'
    : axes.length
      ? 'parameter_confirmation'
      : strategies.length > 1
        ? 'strategy_selection'
        : compare || tickers.length > 1
          ? 'ticker_selection'
          : 'metrics';
  if (!kpi) {
    kpi = DEFAULT_KPI;
    defaults.push(`kpi: ${kpi.replace('_', ' ')} (not given)`);
  }
  if (!sizing) defaults.push('sizing: whole lots of 100 shares');
  if (!capital) defaults.push('capital: 1,000,000 yuan');
  return {
    spec: {
      task,
      tickers,
      ...(window ?? {}),
      strategies,
      kpi,
      capital: capital ?? 1_000_000,
      sizing: sizing ?? 'lots',
      costs: costs ?? 'none',
      ...(slippage ? { slippageBps: slippage.bps } : {}),
      ...(walkForward !== undefined ? { walkForward } : {}),
      ...(axes[0] ? { parameter: axes[0] } : {}),
      ...(axes[1] ? { secondParameter: axes[1] } : {}),
      ...traderSpec({ ...trader, costsChina: costs === 'china', sizing }, portfolio, tickers, input, defaults),
    },
    defaults,
  };
}
