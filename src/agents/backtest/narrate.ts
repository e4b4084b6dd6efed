// The backtest answer in words and tables, computed from the results alone
// (no LLM): what ran, on what, the KPI that was asked for, and the ranking.
import type { Cell, ChartSpec, AnswerTable } from '../../core/answer.js';
import { fmtInt, fmtNumber, fmtPercent } from '../../core/format.js';
import { KPI_NAMES, type KpiName, type Kpis } from '../../backtest/kpis.js';
import { isMinimised, rankIndices, type HonestRanking } from '../../backtest/ranking.js';
import type { HoldVerdict } from './ranking-options.js';
import type { Candidate, SpecResult } from '../../backtest/run-spec.js';
import type { Comparisons } from '../../backtest/comparisons.js';
import { axisName, sweepAxes, type StrategySpec } from '../../backtest/spec.js';
import { chinaModel } from '../../backtest/execution-model.js';
import type { VersusMarket } from '../../backtest/benchmark.js';
import type { WalkForwardResult } from '../../backtest/walk-forward.js';
import { dayCount, firstDay, lastDay } from '../../backtest/bar-cache.js';

export const KPI_LABELS: Record<KpiName, string> = {
  return_ratio: 'Return',
  max_drawdown: 'Max drawdown',
  volatility: 'Volatility',
  sharpe_ratio: 'Sharpe',
  win_rate: 'Win rate',
  profit_loss_ratio: 'P/L ratio',
  calmar_ratio: 'Calmar',
};
const AS_PERCENT: ReadonlySet<KpiName> = new Set(['return_ratio', 'max_drawdown', 'volatility', 'win_rate']);

/** A KPI's name inside a sentence: "max drawdown", "win rate", but "Sharpe" and "Calmar" (names) and "P/L ratio". */
function kpiInText(kpi: KpiName): string {
  const label = KPI_LABELS[kpi];
  return /^(Sharpe|Calmar|P\/L)/.test(label) ? label : label.toLowerCase();
}

export function fmtKpi(kpi: KpiName, v: number | null): string {
  if (v === null) return 'n/a';
  return AS_PERCENT.has(kpi) ? fmtPercent(v) : fmtNumber(v);
}

const TASK_WORDS: Record<StrategySpec['task'], string> = {
  metrics: 'Backtest',
  ticker_selection: 'Best ticker',
  parameter_confirmation: 'Best parameter',
  strategy_selection: 'Best strategy',
};

function period(c: Candidate): string {
  return `${c.ticker.dates[0]} to ${c.ticker.dates.at(-1)} (${fmtInt(c.ticker.dates.length)} trading days)`;
}

/** How an answer tells its run: which candidate it headlines and why, and what was set beside it. */
export interface AnswerView {
  /** the candidate the answer headlines: the best that meets the ranking's minimum (the protocol's best for one run) */
  winner: number;
  /** a comparison's ranking with its minimum; absent for one run */
  ranking?: HonestRanking;
  comparisons: Comparisons;
  /** the user named the KPI (else the headline says it is the default) */
  kpiGiven: boolean;
  /** a comparison's winner against holding its own stock (ranking-options.ts) */
  hold?: HoldVerdict;
}

/** The minimum of a ranking in words: "at least 60 trading days and 1 round trip". */
function minimumWords(r: HonestRanking): string {
  const { days, trades } = r.minimum;
  return `at least ${fmtInt(days)} trading day${days === 1 ? '' : 's'} and ${fmtInt(trades)} round trip${trades === 1 ? '' : 's'}`;
}

/** Only when the winner did not beat its own buy and hold (return against return): the clause that says so. */
function notAboveHold(c: Candidate, hold: Comparisons['hold']): string {
  const r = c.kpis.return_ratio ?? 0;
  return r > hold.return ? '' : `; it did not beat its own buy and hold (${fmtPercent(r)} against ${fmtPercent(hold.return)})`;
}

export function headline(spec: StrategySpec, result: SpecResult, view: AnswerView): string {
  const best = result.candidates[view.winner];
  const kpi = KPI_LABELS[spec.kpi];
  // the model is part of the number: a Sharpe after costs is not the protocol's
  const model = spec.costs === 'china' ? ', with A-share costs' : '';
  const byDefault = view.kpiGiven ? '' : ' (the default KPI; kpi: chooses another)';
  if (spec.task === 'metrics')
    return `${best.ticker.code} ${best.ticker.name}: ${kpi} ${fmtKpi(spec.kpi, best.kpis[spec.kpi])}${model}${byDefault}`;
  if (best.kpis[spec.kpi] === null) return `${TASK_WORDS[spec.task]}: none — ${kpi} is undefined for every candidate${model}`;
  const task = spec.secondParameter ? 'Best pair of parameters' : TASK_WORDS[spec.task];
  const r = view.ranking;
  const among = r && !r.ranked.length ? `; no candidate has ${minimumWords(r)}, so this is the best of all` : '';
  const value = `${best.label} (${fmtKpi(spec.kpi, best.kpis[spec.kpi])})`;
  const v = view.hold;
  if (!v) return `${task} by ${kpi}${byDefault}${model}: ${value}${among}${notAboveHold(best, view.comparisons.hold)}`;
  // one ticker's candidates share its buy and hold; a comparison of tickers holds each its own
  const tickers = spec.task === 'ticker_selection';
  if (v.beat) {
    const first = v.passedOver;
    const firstKpi = first && result.candidates[first.index].kpis[spec.kpi];
    const holding = tickers ? 'it' : 'the stock';
    const passed = first
      ? `; ${result.candidates[first.index].label} ranks first by ${kpiInText(spec.kpi)} (${fmtKpi(spec.kpi, firstKpi ?? null)}) but ` +
        (spec.kpi === 'return_ratio'
          ? `holding ${holding} returned ${fmtPercent(first.hold)}`
          : `returned ${fmtPercent(first.return)} against ${fmtPercent(first.hold)} for holding ${holding}`) +
        (v.above && v.above > 1 ? ` (${fmtInt(v.above - 1)} more above the winner did not beat ${tickers ? 'theirs' : 'it'} either)` : '')
      : '';
    // by how much: a winner with a negative Sharpe may still have lost less than the stock
    const ret = fmtPercent(best.kpis.return_ratio ?? 0);
    const versus = `${ret} against ${fmtPercent(view.comparisons.hold.return)} held`;
    const shown =
      spec.kpi === 'return_ratio' ? `${best.label} (${versus})` : `${best.label} (${fmtKpi(spec.kpi, best.kpis[spec.kpi])}; ${versus})`;
    return `${task} by ${kpi}${byDefault} that beat holding the stock${model}: ${shown}${among}${passed}`;
  }
  const against = `${fmtPercent(best.kpis.return_ratio ?? 0)} against ${fmtPercent(view.comparisons.hold.return)}`;
  const none =
    v.ranked === 1
      ? `it did not beat holding the stock (${against})`
      : `none of the ${fmtInt(v.ranked)} ranked beat holding ${tickers ? 'its own stock' : 'the stock'} (this one returned ${against} for holding it)`;
  return `${task} by ${kpi}${byDefault}${model}: ${value}${among}; ${none}`;
}

type RunSettings = Pick<StrategySpec, 'capital' | 'sizing' | 'costs' | 'slippageBps'>;

const pct = (fraction: number) => `${fmtNumber(fraction * 100, 4).replace(/\.?0+$/, '')}%`;

/** The execution model in one line, with the rates that were in force in the window. */
export function executionLine(spec: RunSettings, c?: Candidate): string {
  if (spec.costs !== 'china') return 'execution: buy at the open, sell at the close, no same-day round trip, zero costs (the protocol)';
  const m = chinaModel();
  const first = c ? c.ticker.dates[0] : undefined;
  const last = c ? c.ticker.dates.at(-1) : undefined;
  const stamp = m.rules.stampDuty.schedule
    .filter((e, i, all) => !first || !last || (e.from <= last && (i + 1 >= all.length || all[i + 1].from > first)))
    .map((e) => `${pct(e.rate)} from ${e.from}`)
    .join(', then ');
  const slippage = spec.slippageBps ?? m.defaultSlippageBps;
  const before = first ? rulesNotYet(first, c?.ticker.code) : '';
  return (
    `execution: A-share costs and rules (costs: china): commission ${pct(m.commissionRate)} a side, at least ${fmtNumber(m.commissionMinimum)} yuan an order; ` +
    `stamp duty on sells ${stamp}; transfer fee ${m.rules.transferFee.schedule.map((e) => `${pct(e.rate)} from ${e.from}`).join(', then ')}; ` +
    `slippage ${slippage} bps; whole lots of ${m.lot}; no buy at a limit-up open, no sell at a limit-down close${c?.simulation.execution ? ` (${c.simulation.execution.board})` : ''}${before}`
  );
}

/**
 * The rules that start inside or after a window beginning on `first`, said: the model applies each from its start
 * date and counts nothing before it (the fixture's history begins there), e.g. Beijing's limits from 2021-11-15.
 */
function rulesNotYet(first: string, code?: string): string {
  const m = chinaModel();
  const notes: string[] = [];
  const stampFrom = m.rules.stampDuty.schedule[0].from;
  if (first < stampFrom) notes.push(`stamp duty counted as zero before ${stampFrom} (the model's history starts there)`);
  const transferFrom = m.rules.transferFee.schedule[0].from;
  if (first < transferFrom) notes.push(`transfer fee counted as zero before ${transferFrom} (the model's history starts there)`);
  if (code) {
    const board = m.rules.priceLimits.boards.find((b) => new RegExp(b.codes).test(code));
    const limitFrom = board?.schedule[0].from;
    if (board && limitFrom && first < limitFrom) notes.push(`${board.board}: no price limit before ${limitFrom}`);
  }
  return notes.length ? `; ${notes.join('; ')}` : '';
}

/** What the costs took and what the limits held up, in a sentence ('' without costs). */
function costsSentence(c: Candidate, capital: number): string {
  const x = c.simulation.execution;
  if (!x) return '';
  const waits = [
    x.buysWaited ? `${x.buysWaited} buy${x.buysWaited === 1 ? '' : 's'} waited for a day without a limit-up open` : '',
    x.sellsWaited ? `${x.sellsWaited} sell${x.sellsWaited === 1 ? '' : 's'} waited for a close above the limit-down price` : '',
  ].filter(Boolean);
  return (
    ` Costs took ${fmtNumber(x.total)} yuan (${fmtPercent(x.total / capital)} of the capital) over ${x.orders} order${x.orders === 1 ? '' : 's'}: ` +
    `commission ${fmtNumber(x.commission)}, stamp duty ${fmtNumber(x.stampDuty)}, transfer fee ${fmtNumber(x.transferFee)}, slippage ${fmtNumber(x.slippage)}.` +
    (waits.length
      ? ` ${waits.join('; ')} (${x.daysWaited} day${x.daysWaited === 1 ? '' : 's'} in all).`
      : ' No order was held up by a price limit.') +
    (x.unfilledBuy ? ' A buy was still waiting for a day without a limit-up open when the window ended.' : '') +
    (x.forcedAtLimitDown
      ? ' The last day closed at the limit-down price: the final sale is counted, but in the market it would not have filled.'
      : '')
  );
}

function describeRun(c: Candidate, spec: RunSettings, hold: Comparisons['hold']): string {
  const { capital } = spec;
  const holdReturn = hold.return;
  const trips = c.simulation.trades.length;
  const wins = c.simulation.trades.filter((t) => t.pnl > 0).length;
  const parts = [
    `From ${period(c)}, buying when ${c.buyRules.join(' and ')}` +
      `${c.sellRules.length ? ` and selling when ${c.sellRules.join(' and ')}` : ' and holding to the end'}, ` +
      `the strategy on ${c.ticker.code} ${c.ticker.name} returned ${fmtKpi('return_ratio', c.kpis.return_ratio)} ` +
      `(buy and hold: ${fmtPercent(holdReturn)}).`,
    trips === 0
      ? 'It never traded: no day met the buy conditions with a lot affordable.'
      : `${trips} round trip${trips === 1 ? '' : 's'}, ${wins} won; max drawdown ${fmtKpi('max_drawdown', c.kpis.max_drawdown)}, ` +
        `Sharpe ${fmtKpi('sharpe_ratio', c.kpis.sharpe_ratio)}, volatility ${fmtKpi('volatility', c.kpis.volatility)}.`,
  ];
  return parts.join(' ') + costsSentence(c, capital);
}

export function narration(spec: StrategySpec, result: SpecResult, view: AnswerView): string {
  const best = result.candidates[view.winner];
  const hold = view.comparisons.hold;
  if (spec.task === 'metrics' || !view.ranking) return describeRun(best, spec, hold);
  const r = view.ranking;
  const ranked = (r.ranked.length ? r.ranked : result.ranking).map((i) => result.candidates[i]);
  const kpi = spec.kpi;
  const order = ranked
    .slice(0, 5)
    .map((c) => `${c.label} ${fmtKpi(kpi, c.kpis[kpi])}`)
    .join(', ');
  const direction = isMinimised(kpi) ? 'lowest' : 'highest';
  const apart = r.apart.length
    ? ` Listed apart, below the minimum (${minimumWords(r)}; min-days: and min-trades: change it): ${fmtInt(r.apart.length)} ` +
      `candidate${r.apart.length === 1 ? '' : 's'}, ` +
      r.apart
        .slice(0, 5)
        .map(
          (a) => `${result.candidates[a.index].label} (${a.why}, ${kpiInText(kpi)} ${fmtKpi(kpi, result.candidates[a.index].kpis[kpi])})`,
        )
        .join(', ') +
      `${r.apart.length > 5 ? `, and ${fmtInt(r.apart.length - 5)} more` : ''}.`
    : ` Every candidate has ${minimumWords(r)}, the minimum for a ranking.`;
  return (
    `Ranked by ${kpiInText(kpi)} (${direction} is best; ties go to the first listed)${r.ranked.length ? `, among those with ${minimumWords(r)}` : ''}: ${order}` +
    `${ranked.length > 5 ? `, and ${fmtInt(ranked.length - 5)} more` : ''}.${apart} ` +
    describeRun(best, spec, hold)
  );
}

/**
 * A comparison of tickers is fair only over the same days. The tickers whose bars cover less than the others'
 * (listed later, delisted or stopped earlier, or long suspensions: over 5% fewer trading days than the longest
 * record), named, for a warning beside the ranking; '' when every window is the same.
 */
export function unevenWindows(tickers: readonly Candidate['ticker'][]): string {
  if (tickers.length < 2) return '';
  // from the cache's day numbers: a whole market's dates are never made for this
  const spans = tickers.map((t) => ({ code: t.code, first: firstDay(t), last: lastDay(t), days: dayCount(t) }));
  const first = spans.reduce((m, t) => (t.first < m ? t.first : m), spans[0].first);
  const last = spans.reduce((m, t) => (t.last > m ? t.last : m), spans[0].last);
  const most = Math.max(...spans.map((t) => t.days));
  const odd = spans.flatMap((t) => {
    const why = [
      t.first > first ? `starts ${t.first}` : '',
      t.last < last ? `ends ${t.last}` : '',
      t.days < most * 0.95 && t.first === first && t.last === last ? `${fmtInt(most - t.days)} fewer trading days (suspended)` : '',
    ].filter(Boolean);
    return why.length ? [`${t.code} ${why.join(' and ')}`] : [];
  });
  if (!odd.length) return '';
  const named = odd.slice(0, 5).join('; ') + (odd.length > 5 ? `; and ${fmtInt(odd.length - 5)} more` : '');
  return (
    `Not a like-for-like comparison: ${fmtInt(odd.length)} of ${fmtInt(tickers.length)} tickers cover less than ${first} to ${last} ` +
    `(${fmtInt(most)} trading days): ${named}. Their KPIs are over their own, shorter windows.`
  );
}

/**
 * Candidates the ranking table keeps: every one of a whole market (5,401 tickers) and of the largest sweep, so
 * that Download CSV has them all; each channel shows the first few.
 */
const RANKING_ROWS = 10_000;

export function kpiTable(result: SpecResult, ranking?: HonestRanking): AnswerTable {
  const { order, row, columns } = rankingRows(result, ranking);
  const rows = order.slice(0, RANKING_ROWS).map(row);
  return { columns, rows, rowCount: order.length, truncated: order.length > rows.length };
}

/** Rows formatted between turns of the event loop (a whole market is 5,401 rows of 9 cells). */
const ROWS_A_TURN = 250;

/** kpiTable's table, letting the event loop run (Slack's acknowledgements, /healthz) every ROWS_A_TURN rows. */
export async function kpiTableInTurns(result: SpecResult, ranking?: HonestRanking): Promise<AnswerTable> {
  const { order, row, columns } = rankingRows(result, ranking);
  const shown = order.slice(0, RANKING_ROWS);
  const rows: Cell[][] = [];
  for (let at = 0; at < shown.length; at += ROWS_A_TURN) {
    if (at) await new Promise((resolve) => setImmediate(resolve));
    for (const i of shown.slice(at, at + ROWS_A_TURN)) rows.push(row(i));
  }
  return { columns, rows, rowCount: order.length, truncated: order.length > rows.length };
}

function rankingRows(result: SpecResult, ranking?: HonestRanking) {
  // from the KPIs and round-trip counts alone: a whole market's runs beyond the shown ones are never made for this;
  // a ranking's candidates below its minimum come after the ranked ones, with why
  const why = new Map(ranking?.apart.map((a) => [a.index, a.why]));
  const order = ranking ? [...ranking.ranked, ...ranking.apart.map((a) => a.index)] : result.ranking;
  const row = (i: number): Cell[] => {
    const c = result.candidates[i];
    const cells: Cell[] = [c.label, ...KPI_NAMES.map((k) => fmtKpi(k, c.kpis[k])), c.roundTrips];
    if (ranking) cells.push(why.has(i) ? `not ranked: ${why.get(i)}` : '');
    return cells;
  };
  return {
    order,
    row,
    columns: ['Candidate', ...KPI_NAMES.map((k) => KPI_LABELS[k]), 'Trades', ...(ranking ? ['Below the minimum'] : [])],
  };
}

/** The KPIs of one run with the costs and without them (the protocol's), side by side, and the round trips of each. */
export function costComparisonTable(withCosts: Candidate, protocol: { kpis: Kpis; trades: number }): AnswerTable {
  const rows: Cell[][] = KPI_NAMES.map((k) => [KPI_LABELS[k], fmtKpi(k, withCosts.kpis[k]), fmtKpi(k, protocol.kpis[k])]);
  rows.push(['Trades', withCosts.simulation.trades.length, protocol.trades]);
  return { columns: ['KPI', 'With A-share costs', 'Without costs (protocol)'], rows, rowCount: rows.length, truncated: false };
}

/** The walk-forward check in a sentence: what was picked in sample, what it did out of sample, how much edge survived. */
export function walkForwardSentence(w: WalkForwardResult, kpi: KpiName): string {
  const label = KPI_LABELS[kpi];
  if (w.pick < 0)
    return `Walk-forward: no candidate has a defined ${kpiInText(kpi)} in sample (${w.inSample.first} to ${w.inSample.last}), so nothing was picked.`;
  const pick = w.rows[w.pick];
  const edge = (v: number | null) => (v === null ? 'n/a' : fmtKpi(kpi, v));
  const survived =
    w.survived === null
      ? 'there was no in-sample edge to keep'
      : w.survived >= 0
        ? `${fmtPercent(w.survived)} of the in-sample edge survived`
        : 'out of sample it did worse than the median candidate';
  const still =
    w.bestOutOfSample === w.pick
      ? 'it was also the best out of sample'
      : `out of sample the best was ${w.rows[w.bestOutOfSample]?.label ?? 'none'}`;
  return (
    `Walk-forward: picked on ${w.inSample.first} to ${w.inSample.last} (${fmtInt(w.inSample.days)} days), ${pick.label} had ${label} ${fmtKpi(kpi, pick.inSample)} ` +
    `(${edge(w.edgeInSample)} above the median candidate); on the ${fmtInt(w.outOfSample.days)} days after, ${w.outOfSample.first} to ${w.outOfSample.last}, ` +
    `it had ${fmtKpi(kpi, pick.outOfSample)} (${edge(w.edgeOutOfSample)} above the median): ${survived}; ${still}.`
  );
}

/** Rows a walk-forward table shows; a larger grid shows the pick and the best in-sample runs after it. */
const WALK_FORWARD_ROWS = 50;

export function walkForwardTable(w: WalkForwardResult, kpi: KpiName): AnswerTable {
  const order =
    w.rows.length <= WALK_FORWARD_ROWS
      ? w.rows.map((_, i) => i)
      : rankIndices(
          w.rows.map((r) => r.inSample),
          kpi,
        ).slice(0, WALK_FORWARD_ROWS);
  const rows: Cell[][] = order
    .map((i) => w.rows[i])
    .map((r, k) => {
      const i = order[k];
      return [`${r.label}${i === w.pick ? ' (picked)' : ''}`, fmtKpi(kpi, r.inSample), fmtKpi(kpi, r.outOfSample)];
    });
  return {
    columns: [
      'Candidate',
      `${KPI_LABELS[kpi]} in sample (${w.inSample.first} to ${w.inSample.last})`,
      `${KPI_LABELS[kpi]} out of sample (${w.outOfSample.first} to ${w.outOfSample.last})`,
    ],
    rows,
    rowCount: w.rows.length,
    truncated: w.rows.length > rows.length,
  };
}

/** The strategy against the market index, in a sentence. */
export function marketSentence(vs: VersusMarket, members: number): string {
  const num = (v: number | null) => (v === null ? 'n/a' : fmtNumber(v));
  return (
    `Against the market (an equal-weight index of the ${fmtInt(members)} tickers trading in the window), which returned ${fmtPercent(vs.marketReturn)} over the same days: ` +
    `excess return ${fmtPercent(vs.excessReturn)}, beta ${num(vs.beta)}, alpha ${vs.alpha === null ? 'n/a' : fmtPercent(vs.alpha)} a year, information ratio ${num(vs.informationRatio)}.`
  );
}

/** The strategy, buy and hold and the market side by side, with the relative measures. */
export function versusMarketTable(c: Candidate, hold: Comparisons['hold'], vs: VersusMarket, members: number): AnswerTable {
  const rows: Cell[][] = [
    ['Return: strategy', fmtPercent(c.kpis.return_ratio ?? 0)],
    [`Return: buy and hold ${c.ticker.code}`, fmtPercent(hold.return)],
    [`Return: market (equal weight, ${fmtInt(members)} tickers)`, fmtPercent(vs.marketReturn)],
    ['Excess return over the market', fmtPercent(vs.excessReturn)],
    ['Beta', vs.beta === null ? 'n/a' : fmtNumber(vs.beta)],
    ['Alpha (a year)', vs.alpha === null ? 'n/a' : fmtPercent(vs.alpha)],
    ['Information ratio', vs.informationRatio === null ? 'n/a' : fmtNumber(vs.informationRatio)],
  ];
  return { columns: ['Measure', 'Value'], rows, rowCount: rows.length, truncated: false };
}

export function tradesTable(c: Candidate, limit = 20): AnswerTable {
  const rows: Cell[][] = c.simulation.trades.map((t) => [
    t.buy_date,
    fmtNumber(t.buy_price),
    `${t.sell_date}${t.forced ? ' (end)' : ''}`,
    fmtNumber(t.sell_price),
    fmtInt(t.shares),
    fmtNumber(t.pnl),
  ]);
  return {
    columns: ['Bought', 'At', 'Sold', 'At', 'Shares', c.simulation.execution ? 'P&L after costs (yuan)' : 'P&L (yuan)'],
    rows: rows.slice(0, limit),
    rowCount: rows.length,
    truncated: rows.length > limit,
  };
}

export function equityChart(c: Candidate, holdEquity: readonly number[], market?: number[]): ChartSpec {
  const equity = c.simulation.equity.slice(1);
  const hold = holdEquity.slice(1);
  // E_0 (the capital) is the first peak, as in the protocol's drawdown
  let peak = c.simulation.equity[0];
  const drawdown = c.simulation.equity.slice(1).map((e) => {
    peak = Math.max(peak, e);
    return Math.round(((e - peak) / peak) * 10000) / 100;
  });
  return {
    kind: 'line',
    title: `${c.ticker.code} ${c.ticker.name}: strategy vs buy and hold${c.simulation.execution ? ' (A-share costs)' : ''}`,
    labels: c.ticker.dates,
    series: [
      { name: 'Strategy equity', values: equity.map((v) => Math.round(v)), axis: 'left', fill: false },
      { name: 'Buy and hold', values: hold.map((v) => Math.round(v)), axis: 'left', fill: false },
      ...(market ? [{ name: 'Market (equal weight)', values: market.map((v) => Math.round(v)), axis: 'left' as const, fill: false }] : []),
      { name: 'Drawdown %', values: drawdown, axis: 'right', fill: true },
    ],
    yLabel: 'yuan',
    y2Label: 'drawdown %',
  };
}

/** A KPI as a heat map or grid cell shows it: percentages in percent. */
const cellValue = (kpi: KpiName, v: number | null) => (v === null ? null : AS_PERCENT.has(kpi) ? Math.round(v * 10_000) / 100 : v);

/** A grid cell whose pair never traded: it has no record, so it is neither a 0% nor part of a median. */
const NO_TRADES = 'no trades' as const;
type GridCell = number | null | typeof NO_TRADES;

/**
 * A two-parameter sweep's KPI on a grid: [i][j] for the first axis's i-th value and the second's j-th, in listing
 * order; NO_TRADES where the pair never traded.
 */
function sweepGrid(spec: StrategySpec, result: SpecResult): GridCell[][] {
  const [first, second] = sweepAxes(spec);
  const grid = first.candidates.map(() => new Array<GridCell>(second.candidates.length).fill(null));
  // planCandidates lists the cells first axis outer, second inner
  result.candidates.forEach(
    (c, k) =>
      (grid[Math.floor(k / second.candidates.length)][k % second.candidates.length] = c.roundTrips === 0 ? NO_TRADES : c.kpis[spec.kpi]),
  );
  return grid;
}

const traded = (v: GridCell): number | null => (v === NO_TRADES ? null : v);

/** The heat map of a two-parameter sweep: the first axis across, the second up, each cell the KPI of that pair. */
export function sweepHeatmap(spec: StrategySpec, result: SpecResult): ChartSpec {
  const axes = sweepAxes(spec);
  const [first, second] = axes;
  const grid = sweepGrid(spec, result);
  const ticker = result.candidates[0].ticker;
  const never = grid.flat().some((v) => v === NO_TRADES);
  return {
    kind: 'heatmap',
    // a pair that never traded is drawn empty (n/a), apart from every value
    title: `${KPI_LABELS[spec.kpi]} of each pair: ${ticker.code} ${ticker.name}${spec.costs === 'china' ? ' (A-share costs)' : ''}${never ? ' (n/a: never traded)' : ''}`,
    labels: first.candidates.map(String),
    series: second.candidates.map((v, j) => ({
      name: String(v),
      values: grid.map((row) => cellValue(spec.kpi, traded(row[j]))),
      axis: 'left' as const,
      fill: false,
    })),
    xLabel: axisName(first, axes),
    yLabel: axisName(second, axes),
    best: isMinimised(spec.kpi) ? 'low' : 'high',
    ...(AS_PERCENT.has(spec.kpi) ? { valueSuffix: '%' } : {}),
  };
}

/** The grid as a table: a row per value of the first axis, a column per value of the second. */
export function sweepTable(spec: StrategySpec, result: SpecResult): AnswerTable {
  const axes = sweepAxes(spec);
  const [first, second] = axes;
  const grid = sweepGrid(spec, result);
  const rows: Cell[][] = first.candidates.map((v, i) => [String(v), ...grid[i].map((x) => (x === NO_TRADES ? x : fmtKpi(spec.kpi, x)))]);
  return {
    columns: [`${axisName(first, axes)} \\ ${axisName(second, axes)}`, ...second.candidates.map(String)],
    rows,
    rowCount: rows.length,
    truncated: false,
  };
}

function medianOf(values: (number | null)[]): number | null {
  const v = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
  if (!v.length) return null;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/**
 * Is the best pair a lone peak or on a plateau? The pairs around it (up to 8) against the whole grid, in a
 * sentence: a pick whose neighbours are as good is less likely to be luck.
 */
export function sweepSentence(spec: StrategySpec, result: SpecResult, best: number): string {
  const [first, second] = sweepAxes(spec);
  const grid = sweepGrid(spec, result);
  const bi = Math.floor(best / second.candidates.length);
  const bj = best % second.candidates.length;
  const size = `${first.candidates.length} × ${second.candidates.length} = ${fmtInt(result.candidates.length)} pairs`;
  const cells = grid.flat();
  const never = cells.filter((v) => v === NO_TRADES).length;
  const undefinedKpi = cells.filter((v) => v === null).length;
  const skipped = [
    never ? `${fmtInt(never)} never traded` : '',
    undefinedKpi ? `${fmtInt(undefinedKpi)} with no ${kpiInText(spec.kpi)}` : '',
  ].filter(Boolean);
  const whole = `The grid has ${size}${skipped.length ? ` (${skipped.join(', ')}: left out of the medians)` : ''}`;
  const value = traded(grid[bi][bj]);
  if (value === null) return `${whole}; none that traded has a defined ${kpiInText(spec.kpi)}.`;
  // the neighbours and the grid that traded: a pair with no trades has no record to count
  const around: (number | null)[] = [];
  for (let i = bi - 1; i <= bi + 1; i++)
    for (let j = bj - 1; j <= bj + 1; j++) if ((i !== bi || j !== bj) && grid[i]?.[j] !== undefined) around.push(traded(grid[i][j]));
  const near = medianOf(around);
  const all = medianOf(cells.map(traded));
  // the share of the best pair's lead over the grid's median that its neighbours keep (the same either way a KPI is best)
  const lead = value - (all ?? 0);
  const kept = near !== null && all !== null && lead !== 0 ? (near - all) / lead : null;
  const counted = around.filter((v) => v !== null).length;
  return (
    `${whole}. ` +
    `The ${counted} pair${counted === 1 ? '' : 's'} around the best that traded ${counted === 1 ? 'has' : 'have'} a median ${kpiInText(spec.kpi)} of ${fmtKpi(spec.kpi, near)} (the whole grid that traded: ${fmtKpi(spec.kpi, all)})` +
    (kept === null
      ? '.'
      : kept < 0
        ? ': they do worse than the grid as a whole, so the best pair stands alone and may be luck.'
        : `: they keep ${fmtPercent(kept)} of the best pair's lead over the grid's median` +
          (kept >= 0.5 ? ', a plateau rather than a lone peak.' : ', so the best pair mostly stands alone and may be luck.'))
  );
}
