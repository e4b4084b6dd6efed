// The rule syntax's trader sections: exits (stop:, take:, trail:, exit-fill:),
// day rules (volume-cap:, limits:), position sizing (invest:, amount:), a
// portfolio (rebalance:, drift:, weights:, top:, and its own invest:, amount:)
// and the tearsheet (tearsheet: on). Each is read
// exactly or refused with what it takes; short: / cover: are refused, as
// A-share backtests here are long-only (BACKTEST_PROTOCOL.md).
import { RuleSyntaxError } from './rule-syntax-error.js';
import { rulesAssumptions } from './rules-words.js';
import { ALL_TICKERS, RANKABLE_FIELDS, type StrategySpec } from './spec.js';

interface Read<T> {
  value: T;
  at: number;
}

export interface TraderOptions {
  stop?: Read<number>;
  take?: Read<number>;
  trail?: Read<number>;
  'exit-fill'?: Read<'intrabar' | 'next_open'>;
  'volume-cap'?: Read<number>;
  limits?: Read<boolean>;
  rebalance?: Read<'none' | 'monthly' | 'quarterly'>;
  drift?: Read<number>;
  weights?: Read<number[]>;
  invest?: Read<number>;
  amount?: Read<number>;
  top?: Read<{ n: number; by: string; order: 'highest' | 'lowest' }>;
  tearsheet?: Read<boolean>;
  /** costs: china was asked (its limits are then said by the execution line) */
  costsChina?: boolean;
  /** sizing: shares was asked (an entry's size then buys any number of shares from 100) */
  sizing?: 'lots' | 'shares';
}

type Section = { key: string; text: string; at: number };

/** "8%", "0.08": a fraction strictly between 0 and `max`; undefined otherwise. */
function fraction(text: string, max = 1): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(%)?$/.exec(text.trim());
  if (!m) return undefined;
  const v = m[2] ? Number(m[1]) / 100 : Number(m[1]);
  return v > 0 && v < max ? v : undefined;
}

const onOff = (text: string) => (/^(on|yes|true)$/i.test(text) ? true : /^(off|no|false)$/i.test(text) ? false : undefined);

/** Reads a trader section into `into`; false when the section is not one of them. */
export function readTraderSection(s: Section, input: string, into: TraderOptions): boolean {
  const fail = (what: string): never => {
    throw new RuleSyntaxError(`${s.key}: ${what}, not "${s.text}"`, s.at, input);
  };
  switch (s.key) {
    case 'short':
      throw new RuleSyntaxError(
        'short selling is not backtested: A-share runs here are long-only (buy, then sell what is held); write the exit as "sell:"',
        s.at,
        input,
      );
    case 'stop':
    case 'trail': {
      const v = fraction(s.text) ?? fail('a fraction of the price below 100%, e.g. "8%"');
      into[s.key] = { value: v, at: s.at };
      return true;
    }
    case 'take': {
      const v = fraction(s.text, 10) ?? fail('a gain over the entry price, e.g. "15%"');
      into.take = { value: v, at: s.at };
      return true;
    }
    case 'exit-fill': {
      const v = s.text.toLowerCase().replace('-', '_');
      if (v !== 'intrabar' && v !== 'next_open')
        fail('"intrabar" (at the level, the open on a gap) or "next-open" (after a close through it)');
      into['exit-fill'] = { value: v as 'intrabar' | 'next_open', at: s.at };
      return true;
    }
    case 'volume-cap': {
      const v = fraction(s.text, 1.000001) ?? fail('the share of a day\'s volume an order may take, e.g. "10%"');
      into['volume-cap'] = { value: v, at: s.at };
      return true;
    }
    case 'limits':
    case 'tearsheet': {
      const v = onOff(s.text);
      if (v === undefined) fail('"on" or "off"');
      into[s.key] = { value: v!, at: s.at };
      return true;
    }
    case 'rebalance': {
      const v = s.text.toLowerCase();
      if (v !== 'monthly' && v !== 'quarterly' && v !== 'none')
        fail('"monthly" or "quarterly" (the first trading day of each), or "none"; add "drift: 5%" to rebalance on drift');
      into.rebalance = { value: v as 'none' | 'monthly' | 'quarterly', at: s.at };
      return true;
    }
    case 'drift': {
      const v = fraction(s.text) ?? fail('how far a weight may move from its target before a rebalance, e.g. "5%"');
      into.drift = { value: v, at: s.at };
      return true;
    }
    case 'invest': {
      const v =
        fraction(s.text, 1.000001) ??
        fail('the fraction of the equity invested (at each entry, or a portfolio\'s rebalance), e.g. "50%" (the rest stays cash)');
      into.invest = { value: v, at: s.at };
      return true;
    }
    case 'amount': {
      const v = Number(s.text.replace(/[,_]/g, '').replace(/\s*yuan$/i, ''));
      if (!(v > 0)) fail('a fixed amount of yuan per entry (a portfolio: per member), e.g. "100,000"');
      into.amount = { value: v, at: s.at };
      return true;
    }
    case 'weights': {
      const parts = s.text.split(/[,\s]+/).filter(Boolean);
      if (parts.length === 1 && /^equal$/i.test(parts[0])) return true;
      const values = parts.map((p) => Number(p.replace('%', '')));
      if (!values.length || values.some((v) => !(v > 0))) fail('one positive weight per ticker, in order, e.g. "50,30,20", or "equal"');
      into.weights = { value: values, at: s.at };
      return true;
    }
    case 'top': {
      const m = /^(\d+)\s+by\s+(highest\s+|lowest\s+)?([A-Za-z_]+)$/i.exec(s.text.trim());
      const by = m?.[3].toUpperCase().replace(/^VOL$/, 'VOLUME');
      if (!m || !(RANKABLE_FIELDS as readonly string[]).includes(by!))
        fail(
          `a count and a field of the first day, e.g. "20 by amount" (fields: ${RANKABLE_FIELDS.map((f) => f.toLowerCase()).join(', ')})`,
        );
      into.top = { value: { n: Number(m![1]), by: by!, order: m![2]?.trim().toLowerCase() === 'lowest' ? 'lowest' : 'highest' }, at: s.at };
      return true;
    }
  }
  return false;
}

/** The spec's exits, day rules, portfolio and tearsheet from the sections read; the choices made for the user in `defaults`. */
export function traderSpec(
  o: TraderOptions,
  portfolio: boolean,
  tickers: string[],
  input: string,
  defaults: string[],
): Partial<Pick<StrategySpec, 'exits' | 'dayRules' | 'portfolio' | 'tearsheet' | 'positionSize'>> {
  const out: Partial<Pick<StrategySpec, 'exits' | 'dayRules' | 'portfolio' | 'tearsheet' | 'positionSize'>> = {};
  if (o.amount && o.invest)
    throw new RuleSyntaxError(
      `give either invest: (a fraction of equity) or amount: (yuan per ${portfolio ? 'member' : 'entry'})`,
      o.amount.at,
      input,
    );
  // a single run: each entry buys for that fraction of the equity, or that amount
  if (!portfolio && o.invest) out.positionSize = { invest: o.invest.value };
  if (!portfolio && o.amount) out.positionSize = { amount: o.amount.value };
  if (o.stop || o.take || o.trail) {
    out.exits = {
      ...(o.stop ? { stopLoss: o.stop.value } : {}),
      ...(o.take ? { takeProfit: o.take.value } : {}),
      ...(o.trail ? { trailingStop: o.trail.value } : {}),
      fill: o['exit-fill']?.value ?? 'intrabar',
    };
  } else if (o['exit-fill'])
    throw new RuleSyntaxError('exit-fill: needs an exit to fill (stop:, take: or trail:)', o['exit-fill'].at, input);
  if (o['volume-cap'] || o.limits) {
    out.dayRules = {
      ...(o.limits?.value ? { limits: true } : {}),
      ...(o['volume-cap'] ? { volumeCap: o['volume-cap'].value } : {}),
    };
  }
  if (portfolio) {
    const every = tickers.length === 1 && tickers[0] === ALL_TICKERS;
    if (every && !o.top) throw new RuleSyntaxError('a portfolio of "all" needs "top: N by FIELD" (e.g. "top: 20 by amount")', 1, input);
    if (o.weights && o.top)
      throw new RuleSyntaxError('weights: and top: do not go together: the top N are equally weighted', o.weights.at, input);
    out.portfolio = {
      ...(o.weights ? { weights: o.weights.value } : {}),
      rebalance: o.rebalance?.value ?? 'monthly',
      ...(o.drift ? { drift: o.drift.value } : {}),
      invest: o.invest?.value ?? 1,
      ...(o.amount ? { amount: o.amount.value } : {}),
      ...(o.top ? { top: o.top.value } : {}),
    };
    if (!o.rebalance) defaults.push('rebalance: monthly (the first trading day of each month)');
    if (!o.weights && !o.top) defaults.push('weights: equal');
  }
  if (o.tearsheet?.value ?? portfolio) out.tearsheet = true;
  defaults.push(...rulesAssumptions({ ...out, costs: o.costsChina ? 'china' : 'none', sizing: o.sizing }));
  return out;
}
