// The backtest answer in words and tables, computed from the results alone
// (no LLM): what ran, on what, the KPI that was asked for, and the ranking.
import type { Cell, ChartSpec, AnswerTable } from '../../core/answer.js';
import { fmtInt, fmtNumber, fmtPercent } from '../../core/format.js';
import { KPI_NAMES, type KpiName } from '../../backtest/kpis.js';
import { isMinimised } from '../../backtest/ranking.js';
import { buyAndHold, type Candidate, type SpecResult } from '../../backtest/run-spec.js';
import type { StrategySpec } from '../../backtest/spec.js';

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

export function headline(spec: StrategySpec, result: SpecResult): string {
  const best = result.candidates[result.ranking[0]];
  const kpi = KPI_LABELS[spec.kpi];
  if (spec.task === 'metrics') return `${best.ticker.code} ${best.ticker.name}: ${kpi} ${fmtKpi(spec.kpi, best.kpis[spec.kpi])}`;
  if (best.kpis[spec.kpi] === null) return `${TASK_WORDS[spec.task]}: none — ${kpi} is undefined for every candidate`;
  return `${TASK_WORDS[spec.task]} by ${kpi}: ${best.label} (${fmtKpi(spec.kpi, best.kpis[spec.kpi])})`;
}

function describeRun(c: Candidate, capital: number, sizing: StrategySpec['sizing']): string {
  const hold = buyAndHold(c.ticker, capital, sizing);
  const holdReturn = hold[hold.length - 1] / hold[0] - 1;
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
  return parts.join(' ');
}

export function narration(spec: StrategySpec, result: SpecResult): string {
  const ranked = result.ranking.map((i) => result.candidates[i]);
  const best = ranked[0];
  if (spec.task === 'metrics') return describeRun(best, spec.capital, spec.sizing);
  const kpi = spec.kpi;
  const order = ranked
    .slice(0, 5)
    .map((c) => `${c.label} ${fmtKpi(kpi, c.kpis[kpi])}`)
    .join(', ');
  const direction = isMinimised(kpi) ? 'lowest' : 'highest';
  return (
    `Ranked by ${KPI_LABELS[kpi].toLowerCase()} (${direction} is best; ties go to the first listed): ${order}` +
    `${ranked.length > 5 ? `, and ${ranked.length - 5} more` : ''}. ` +
    describeRun(best, spec.capital, spec.sizing)
  );
}

export function kpiTable(result: SpecResult): AnswerTable {
  // only the rows shown: a whole market has 5,000+ candidates
  const rows: Cell[][] = result.ranking.slice(0, 50).map((i) => {
    const c = result.candidates[i];
    return [c.label, ...KPI_NAMES.map((k) => fmtKpi(k, c.kpis[k])), c.simulation.trades.length];
  });
  const count = result.ranking.length;
  return { columns: ['Candidate', ...KPI_NAMES.map((k) => KPI_LABELS[k]), 'Trades'], rows, rowCount: count, truncated: count > 50 };
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
    columns: ['Bought', 'At', 'Sold', 'At', 'Shares', 'P&L (yuan)'],
    rows: rows.slice(0, limit),
    rowCount: rows.length,
    truncated: rows.length > limit,
  };
}

export function equityChart(c: Candidate, capital: number, sizing: StrategySpec['sizing']): ChartSpec {
  const equity = c.simulation.equity.slice(1);
  const hold = buyAndHold(c.ticker, capital, sizing).slice(1);
  // E_0 (the capital) is the first peak, as in the protocol's drawdown
  let peak = c.simulation.equity[0];
  const drawdown = c.simulation.equity.slice(1).map((e) => {
    peak = Math.max(peak, e);
    return Math.round(((e - peak) / peak) * 10000) / 100;
  });
  return {
    kind: 'line',
    title: `${c.ticker.code} ${c.ticker.name}: strategy vs buy and hold`,
    labels: c.ticker.dates,
    series: [
      { name: 'Strategy equity', values: equity.map((v) => Math.round(v)), axis: 'left', fill: false },
      { name: 'Buy and hold', values: hold.map((v) => Math.round(v)), axis: 'left', fill: false },
      { name: 'Drawdown %', values: drawdown, axis: 'right', fill: true },
    ],
    yLabel: 'yuan',
    y2Label: 'drawdown %',
  };
}
