// A portfolio backtest's answer: the one run of backtest/run-portfolio.ts told
// with its members and weights, its rebalances, the costs and the rules that
// held orders back, its tearsheet and one chart; kept and rerun by its id as
// any run. The agent hands over here once the bars are fetched.
import type { Answer, AnswerTable, Cell, TraceStep } from '../../core/answer.js';
import { makeAnswer, timed } from '../../core/answer.js';
import { fmtInt, fmtNumber, fmtPercent } from '../../core/format.js';
import { KPI_NAMES } from '../../backtest/kpis.js';
import { runLink } from '../../backtest/run-id.js';
import type { PortfolioRun } from '../../backtest/run-portfolio.js';
import { runPortfolioThreaded } from '../../backtest/run-threaded.js';
import type { StrategySpec } from '../../backtest/spec.js';
import type { BacktestDeps, BacktestOutcome } from './backtest-deps.js';
import { keepRun } from './keep-run.js';
import { executionLine, fmtKpi, KPI_LABELS, marketSentence } from './narrate.js';
import type { RetrievedData } from './retrieval.js';
import { tearsheetChart, tearsheetTables } from './tearsheet-part.js';

const REBALANCE_ROWS = 24;

function headline(spec: StrategySpec, run: PortfolioRun): string {
  const c = run.candidates[0];
  const p = spec.portfolio!;
  const how = `${p.rebalance === 'none' ? 'not rebalanced' : `rebalanced ${p.rebalance}`}${p.drift !== undefined ? ` and on drift` : ''}`;
  return (
    `Portfolio of ${run.members.length} (${how}${spec.costs === 'china' ? ', with A-share costs' : ''}): ` +
    `${KPI_LABELS[spec.kpi]} ${fmtKpi(spec.kpi, c.kpis[spec.kpi])}, return ${fmtKpi('return_ratio', c.kpis.return_ratio)}, ` +
    `max drawdown ${fmtKpi('max_drawdown', c.kpis.max_drawdown)}`
  );
}

function narration(spec: StrategySpec, run: PortfolioRun): string {
  const r = run.portfolio;
  const x = r.execution;
  const held = [
    r.counts.stopLosses ? `${r.counts.stopLosses} stop-loss${r.counts.stopLosses === 1 ? '' : 'es'}` : '',
    r.counts.takeProfits ? `${r.counts.takeProfits} take-profit${r.counts.takeProfits === 1 ? '' : 's'}` : '',
    r.counts.trailingStops ? `${r.counts.trailingStops} trailing stop${r.counts.trailingStops === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const blocked = [
    r.counts.heldByT1 ? `${r.counts.heldByT1} sale${r.counts.heldByT1 === 1 ? '' : 's'} held a day by T+1` : '',
    r.counts.blockedByLimit ? `${r.counts.blockedByLimit} order${r.counts.blockedByLimit === 1 ? '' : 's'} held by a price limit` : '',
    r.counts.partialFills ? `${r.counts.partialFills} order${r.counts.partialFills === 1 ? '' : 's'} filled in part by the volume cap` : '',
  ].filter(Boolean);
  return [
    `From ${r.dates[0]} to ${r.dates.at(-1)} (${fmtInt(r.dates.length)} trading days), ${run.chosen}, ` +
      `${run.candidates[0].buyRules[0] === 'always held' ? 'all held' : `each held while ${run.candidates[0].buyRules.join(' and ')}${run.candidates[0].sellRules.length ? ` until ${run.candidates[0].sellRules.join(' and ')}` : ''}`}: ` +
      `${fmtInt(r.rebalances.length)} rebalance${r.rebalances.length === 1 ? '' : 's'}, ${fmtInt(r.trades.length)} sale${r.trades.length === 1 ? '' : 's'}.`,
    held.length ? `Exits: ${held.join(', ')}.` : '',
    blocked.length ? `${blocked.join('; ')}.` : '',
    x
      ? `Costs took ${fmtNumber(x.total)} yuan (${fmtPercent(x.total / spec.capital)} of the capital) over ${fmtInt(x.orders)} orders: commission ${fmtNumber(x.commission)}, stamp duty ${fmtNumber(x.stampDuty)}, transfer fee ${fmtNumber(x.transferFee)}, slippage ${fmtNumber(x.slippage)}.`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function kpiTable(run: PortfolioRun): AnswerTable {
  const k = run.candidates[0].kpis;
  const rows: Cell[][] = KPI_NAMES.map((name) => [KPI_LABELS[name], fmtKpi(name, k[name])]);
  return { columns: ['KPI', run.candidates[0].label], rows, rowCount: rows.length, truncated: false };
}

function membersTable(spec: StrategySpec, run: PortfolioRun): AnswerTable {
  const w = spec.portfolio!.weights && !spec.portfolio!.top ? spec.portfolio!.weights : run.members.map(() => 1);
  const sum = w.reduce((a, b) => a + b, 0);
  const first = run.portfolio.rebalances[0];
  const rows: Cell[][] = run.members.map((m, i) => [m.code, m.name, fmtPercent(w[i] / sum, 1), first ? first.holdings[i] : 0]);
  return { columns: ['Code', 'Name', 'Weight', 'Shares after the first rebalance'], rows, rowCount: rows.length, truncated: false };
}

/** The portfolio and the market index over the same days, with the relative measures (docs/backtest-definitions.md). */
function marketTable(run: PortfolioRun, vs: NonNullable<PortfolioRun['market']>): AnswerTable {
  const num = (v: number | null) => (v === null ? 'n/a' : fmtNumber(v));
  const rows: Cell[][] = [
    ['Return: portfolio', fmtKpi('return_ratio', run.candidates[0].kpis.return_ratio)],
    [`Return: market (equal weight, ${fmtInt(vs.members)} tickers)`, fmtPercent(vs.marketReturn)],
    ['Excess return over the market', fmtPercent(vs.excessReturn)],
    ['Beta', num(vs.beta)],
    ['Alpha (a year)', vs.alpha === null ? 'n/a' : fmtPercent(vs.alpha)],
    ['Information ratio', num(vs.informationRatio)],
  ];
  return { columns: ['Measure', 'Value'], rows, rowCount: rows.length, truncated: false };
}

function rebalanceTable(run: PortfolioRun): AnswerTable {
  const all = run.portfolio.rebalances;
  const rows: Cell[][] = all
    .slice(0, REBALANCE_ROWS)
    .map((r) => [r.date, r.reason, fmtNumber(r.equityAtOpen), fmtNumber(r.cash), r.holdings.filter((h) => h > 0).length]);
  return {
    columns: ['Date', 'Why', 'Equity at the open', 'Cash after the orders', 'Members held'],
    rows,
    rowCount: all.length,
    truncated: all.length > rows.length,
  };
}

export async function answerPortfolio(
  spec: StrategySpec,
  text: string,
  reading: { assumptions: string[]; rerun?: { request: string } },
  data: RetrievedData,
  deps: BacktestDeps,
  trace: TraceStep[],
): Promise<BacktestOutcome> {
  // off the event loop unless small, with the market beside it over the portfolio's days
  const run = await timed(trace, 'simulate', () => runPortfolioThreaded(spec, data.tickers, data.market), 'portfolio');
  const c = run.candidates[0];
  const part = tearsheetTables(c.label, run.tearsheet);
  // "portfolio of 3" starts a title as the other titles start: with a capital
  const titled = c.label[0].toUpperCase() + c.label.slice(1);
  const answer = {
    headline: headline(spec, run),
    narration: [narration(spec, run), run.market ? marketSentence(run.market, run.market.members) : '', part.sentence]
      .filter(Boolean)
      .join(' '),
    table: kpiTable(run),
    extraTables: [
      { title: 'Members', table: membersTable(spec, run) },
      ...(run.market ? [{ title: `${titled} against the market`, table: marketTable(run, run.market) }] : []),
      { title: 'Rebalances', table: rebalanceTable(run) },
      ...part.tables,
    ],
    chart: tearsheetChart(`${titled}: equity and drawdown`, run.portfolio.dates, run.portfolio.equity),
  };
  const { id } = await keepRun(deps, data, {
    request: reading.rerun?.request ?? text,
    spec,
    headline: answer.headline,
    best: { label: c.label, kpis: c.kpis },
  });
  const final: Answer = makeAnswer({
    kind: 'result',
    route: 'backtest',
    trace,
    ...answer,
    sql: data.sql,
    assumptions: [
      ...reading.assumptions,
      spec.costs === 'china'
        ? executionLine(spec, c).replace(
            /; no buy at a limit-up open.*$/,
            '; no buy at the limit-up price, no sale at the limit-down price',
          )
        : 'execution: zero costs and no price limits (the protocol setting), every order at the open',
    ],
    notes: [
      ...(data.skipped ? [`${data.skipped} tickers left out: fewer than 2 trading days in the window.`] : []),
      deps.runs
        ? `Run id ${id}: /backtest rerun ${id} repeats it.${deps.publicBaseUrl ? ` Its parameters: ${runLink(deps.publicBaseUrl, id)}` : ''}`
        : `Run id ${id} (runs are not kept here, so it cannot be rerun by its id).`,
    ],
    freshness: `bars through ${data.lastDate}`,
  });
  return { answer: final, spec, result: run, runId: id };
}
