// A portfolio spec over bars already fetched: its members (the tickers listed,
// or the n with the highest or lowest value of a field on the first day), their
// signals, and one run of the portfolio engine, as a SpecResult of one
// candidate so that the answer, the run id and `rerun` treat it as any run.
import type { Bars } from './expr/compile.js';
import { chinaModel } from './execution-model.js';
import type { Kpis } from './kpis.js';
import type { VersusMarket } from './benchmark.js';
import type { Tearsheet } from './tearsheet.js';
import { simulatePortfolio, type PortfolioResult } from './portfolio.js';
import { candidateRules, dayNumbers, signalsOf, type Candidate, type SpecResult, type TickerBars } from './run-spec.js';
import { holdsAlways, type StrategySpec } from './spec.js';

export interface PortfolioRun extends SpecResult {
  portfolio: PortfolioResult;
  members: TickerBars[];
  /** how the members were chosen, for the answer */
  chosen: string;
  /** the portfolio against the market index over its days (benchmark.ts), when the run had one */
  market?: VersusMarket & { members: number };
  /** its tearsheet, computed with the run */
  tearsheet: Tearsheet;
}

/** The rankable fields (spec.ts RANKABLE_FIELDS) as a trader says them. */
const FIELD_WORDS: Record<string, string> = {
  CLOSE: 'close',
  OPEN: 'open',
  VOLUME: 'volume traded',
  AMOUNT: 'amount traded (yuan)',
  PERCENTAGE_CHANGE: 'percentage change',
};

/** The members: the tickers as listed, or the top n by a field's value on the window's first day. */
export function portfolioMembers(spec: StrategySpec, tickers: TickerBars[]): { members: TickerBars[]; chosen: string } {
  const top = spec.portfolio?.top;
  if (!top) return { members: tickers, chosen: `${tickers.length} tickers as listed` };
  const field = top.by.toUpperCase() as keyof Bars;
  const first = tickers.reduce((d, t) => (t.dates[0] < d ? t.dates[0] : d), '9999-12-31');
  const ranked = tickers
    .map((t, i) => ({ t, i, v: t.dates[0] === first ? t.bars[field]?.[0] : undefined }))
    .filter((x): x is { t: TickerBars; i: number; v: number } => x.v !== undefined && Number.isFinite(x.v))
    .sort((a, b) => (top.order === 'highest' ? b.v - a.v : a.v - b.v) || a.i - b.i);
  const members = ranked.slice(0, top.n).map((x) => x.t);
  return {
    members,
    chosen: `the ${members.length} of ${ranked.length} tickers trading on ${first} with the ${top.order} ${FIELD_WORDS[field] ?? top.by} that day`,
  };
}

/** The portfolio engine's run of the spec over these members (the weights as given, or equal for a top n). */
export function simulatePortfolioSpec(spec: StrategySpec, members: TickerBars[]): PortfolioResult {
  const p = spec.portfolio!;
  const strategy = spec.strategies[0];
  const always = holdsAlways(strategy);
  const model = spec.costs === 'china' ? chinaModel() : undefined;
  const weights = p.top || !p.weights ? members.map(() => 1) : p.weights;
  return simulatePortfolio({
    members: members.map((t) => ({
      code: t.code,
      // the price-limit rules read ST from the exchange's short name
      name: t.shortName ?? t.name,
      days: dayNumbers(t.dates),
      open: t.bars.OPEN,
      close: t.bars.CLOSE,
      high: t.bars.HIGH,
      low: t.bars.LOW,
      volume: t.bars.VOLUME,
      ...(always ? {} : signalsOf(spec, t, strategy)),
    })),
    weights,
    rebalance: p.rebalance,
    drift: p.drift,
    invest: p.invest,
    amount: p.amount,
    capital: spec.capital,
    model,
    slippageBps: spec.slippageBps ?? model?.defaultSlippageBps ?? 0,
    exits: spec.exits,
    dayRules: spec.dayRules,
  });
}

/** The run as a SpecResult of one candidate, from the engine's result, its KPIs and the market beside it. */
export function portfolioRun(
  spec: StrategySpec,
  chosen: { members: TickerBars[]; chosen: string },
  run: { portfolio: PortfolioResult; kpis: Kpis; market?: PortfolioRun['market']; tearsheet: Tearsheet },
): PortfolioRun {
  const { members } = chosen;
  const strategy = spec.strategies[0];
  const ticker: TickerBars = {
    code: 'portfolio',
    name: `of ${members.length} tickers`,
    dates: run.portfolio.dates,
    bars: {} as Bars,
  };
  const candidate: Candidate = {
    label: `portfolio of ${members.length}`,
    ticker,
    strategy,
    simulation: run.portfolio,
    kpis: run.kpis,
    roundTrips: run.portfolio.trades.length,
    ...(holdsAlways(strategy) ? { buyRules: ['always held'], sellRules: [] } : candidateRules(spec, strategy)),
  };
  return {
    candidates: [candidate],
    ranking: [0],
    kpi: spec.kpi,
    portfolio: run.portfolio,
    members,
    chosen: chosen.chosen,
    tearsheet: run.tearsheet,
    ...(run.market ? { market: run.market } : {}),
  };
}
