// The market beside a strategy: an equal-weight index of every loaded ticker
// (each day's return is the mean of the close-to-close returns of the tickers
// that traded that day, each against its own previous bar), and the strategy
// measured against it: the market's return over the window, the excess return,
// beta, alpha and the information ratio (docs/backtest-definitions.md).
// The index's days are the market's, not the strategy's ticker's: over a
// suspension of the ticker, the market's moves of those days compound into its
// next bar's. Computed from the shared bar cache (bar-cache.ts), so a whole
// market costs one pass over its CLOSE column; a run reads the index kept daily
// (market-index.ts) when it is current.
import type { MarketTable } from './bar-cache.js';
import { dayOfIso, dayText } from './days.js';
import { DAYS_PER_YEAR, RISK_FREE_DAILY } from './kpis.js';

export interface MarketIndex {
  /** the day's equal-weight return, by ISO date, in date order */
  returns: Map<string, number>;
  /** tickers that contributed at least one return in the window */
  members: number;
}

// the index of the last few windows: a whole market is one pass over 6.6M closes, the same window asked again is free
const recent = new Map<string, MarketIndex>();

/** The equal-weight index's daily returns from `first` to `last` (ISO dates, inclusive), over these tables. */
export function equalWeightIndex(tables: readonly MarketTable[], first: string, last: string): MarketIndex {
  const key = `${tables.map((t) => `${t.exchange}@${t.version}`).join('|')}|${first}|${last}`;
  let index = recent.get(key);
  if (!index) {
    index = computeIndex(tables, first, last);
    if (recent.size >= 16) recent.delete(recent.keys().next().value!);
    recent.set(key, index);
  }
  return index;
}

function computeIndex(tables: readonly MarketTable[], first: string, last: string): MarketIndex {
  const from = dayOfIso(first);
  const to = dayOfIso(last);
  const sums = new Float64Array(to - from + 1);
  const counts = new Int32Array(to - from + 1);
  let members = 0;
  for (const table of tables) {
    const close = table.columns.get('CLOSE');
    if (!close) throw new Error(`the bar cache of ${table.exchange} has no CLOSE column`);
    for (let c = 0; c < table.codes.length; c++) {
      let counted = false;
      for (let j = table.starts[c] + 1; j < table.starts[c + 1]; j++) {
        const d = table.days[j];
        if (d < from || d > to || !(close[j - 1] > 0)) continue;
        sums[d - from] += close[j] / close[j - 1] - 1;
        counts[d - from]++;
        counted = true;
      }
      if (counted) members++;
    }
  }
  const returns = new Map<string, number>();
  for (let i = 0; i < counts.length; i++) if (counts[i]) returns.set(dayText(from + i), sums[i] / counts[i]);
  return { returns, members };
}

export interface VersusMarket {
  marketReturn: number;
  /** the strategy's return less the market's, over the window */
  excessReturn: number;
  beta: number | null;
  /** Jensen's, annualised, over the Sharpe ratio's risk-free rate rf: ((mean r_s - rf) - beta x (mean r_m - rf)) x 252 */
  alpha: number | null;
  /** mean of the daily excess returns / their standard deviation (ddof=1) x sqrt(252) */
  informationRatio: number | null;
  /** the market's equity from the same capital, one point per day, for the chart */
  equity: number[];
}

const mean = (xs: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s / xs.length;
};

/**
 * The market's return over each of the strategy's days: on dates[0] the index's return of that day, then from the
 * close of dates[i-1] to the close of dates[i], every market day in between compounded (the days the ticker was
 * suspended included); 0 where no ticker traded.
 */
export function marketReturnsOver(dates: readonly string[], index: MarketIndex): Float64Array {
  const days = [...index.returns.keys()];
  // kept in date order by the index's makers; sorted here if one was not
  for (let k = 1; k < days.length; k++) if (days[k] < days[k - 1]) days.sort();
  const rm = new Float64Array(dates.length);
  let k = 0;
  for (let i = 0; i < dates.length; i++) {
    // the market days up to and including dates[i] not yet counted (for i = 0, only dates[0] itself)
    if (i === 0) while (k < days.length && days[k] < dates[0]) k++;
    let growth = 1;
    let count = 0;
    let only = 0;
    for (; k < days.length && days[k] <= dates[i]; k++, count++) growth *= 1 + (only = index.returns.get(days[k])!);
    // one day is that day's return as is ((1 + r) - 1 may differ from r in the last bit)
    rm[i] = count === 1 ? only : growth - 1;
  }
  return rm;
}

/**
 * The strategy (its N+1 equity points over `dates`, the protocol's accounting) against the market index:
 * day i's strategy return E_{i+1}/E_i - 1 is set beside the market's return over the same span (marketReturnsOver).
 */
export function versusMarket(equity: readonly number[], dates: readonly string[], index: MarketIndex): VersusMarket {
  const n = dates.length;
  const rs = new Float64Array(n);
  const rm = marketReturnsOver(dates, index);
  const marketEquity: number[] = [];
  let m = equity[0];
  for (let i = 0; i < n; i++) {
    rs[i] = equity[i + 1] / equity[i] - 1;
    m *= 1 + rm[i];
    marketEquity.push(m);
  }
  const marketReturn = m / equity[0] - 1;
  const strategyReturn = equity[n] / equity[0] - 1;
  let beta: number | null = null;
  let alpha: number | null = null;
  let informationRatio: number | null = null;
  if (n >= 2) {
    const ms = mean(rs);
    const mm = mean(rm);
    let cov = 0;
    let varM = 0;
    const diff = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      cov += (rs[i] - ms) * (rm[i] - mm);
      varM += (rm[i] - mm) ** 2;
      diff[i] = rs[i] - rm[i];
    }
    if (varM > 0) {
      beta = cov / varM;
      alpha = (ms - RISK_FREE_DAILY - beta * (mm - RISK_FREE_DAILY)) * DAYS_PER_YEAR;
    }
    const md = mean(diff);
    let varD = 0;
    for (let i = 0; i < n; i++) varD += (diff[i] - md) ** 2;
    const sd = Math.sqrt(varD / (n - 1));
    // a tracking error within rounding of zero (the strategy is the market) has no ratio
    if (sd > 1e-12) informationRatio = (md / sd) * Math.sqrt(DAYS_PER_YEAR);
  }
  return { marketReturn, excessReturn: strategyReturn - marketReturn, beta, alpha, informationRatio, equity: marketEquity };
}
