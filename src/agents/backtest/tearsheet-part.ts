// The tearsheet in the thread: a compact table (exposure, turnover, the
// rolling Sharpe's range, the worst drawdown periods, the Monte Carlo line),
// the monthly returns by year, the drawdown periods, and one chart (equity
// with its drawdown beneath). Words and tables only; the numbers come from
// backtest/tearsheet.ts.
import type { AnswerTable, Cell, ChartSpec } from '../../core/answer.js';
import { fmtInt, fmtNumber, fmtPercent } from '../../core/format.js';
import type { MonteCarlo } from '../../backtest/monte-carlo.js';
import type { Candidate } from '../../backtest/run-spec.js';
import type { RulesReport } from '../../backtest/simulator.js';
import type { StrategySpec } from '../../backtest/spec.js';
import { ROLLING_SHARPE_DAYS, tearsheet, type Tearsheet, type TearsheetInput } from '../../backtest/tearsheet.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DRAWDOWN_ROWS = 5;

/** "In 1,000 reshuffles of these 14 trades, a drawdown worse than 30% happened 12.3% of the time ..." */
function monteCarloSentence(mc: MonteCarlo): string {
  return (
    `In ${fmtInt(mc.runs)} reshuffles of these ${fmtInt(mc.trades)} trades (seed ${mc.seed}, so a rerun gives the same), ` +
    // the reshuffled path moves only at sales, so it cannot see a fall while positions are held: said, lest a trader
    // read it against the daily equity's drawdown
    `a drawdown between sales worse than ${fmtPercent(mc.threshold, 0)} happened ${fmtPercent(mc.worseThanThreshold, 1)} of the time; ` +
    // not the share that ended below the capital: the trades compound to the same end in every order, so it is 0% or
    // 100% whatever the luck (and a portfolio's end also holds shares no sale has closed)
    `the median drawdown was ${fmtPercent(mc.medianDrawdown, 1)} and 1 in 20 was worse than ${fmtPercent(mc.drawdown95, 1)} ` +
    `(the path moves only when a trade closes, so it misses falls while holding, which the max drawdown counts).`
  );
}

/** The Monte Carlo in a table cell (the sentence is in the narration): "worse than 30% in 12.3% of 1,000". */
const monteCarloCell = (mc: MonteCarlo) =>
  `worse than ${fmtPercent(mc.threshold, 0)} in ${fmtPercent(mc.worseThanThreshold, 1)} of ${fmtInt(mc.runs)}`;

/** The summary's cells stay short (a chat table cuts a cell at 40 characters); the details are in the other tables. */
function summaryTable(t: Tearsheet): AnswerTable {
  const sharpes = t.rollingSharpe.filter((v): v is number => v !== null);
  const worst = t.drawdowns[0];
  const rows: Cell[][] = [
    ['Exposure (mean, at the close)', `${fmtPercent(t.exposure, 1)} of the equity invested`],
    ['Turnover (a year)', `${fmtNumber(t.turnover, 2)}× the mean equity`],
    [
      `Rolling Sharpe (${ROLLING_SHARPE_DAYS} days)`,
      sharpes.length
        ? `last ${fmtNumber(sharpes.at(-1)!)}, low ${fmtNumber(Math.min(...sharpes))}, high ${fmtNumber(Math.max(...sharpes))}`
        : `window under ${ROLLING_SHARPE_DAYS} days`,
    ],
    ['Worst drawdown', worst ? `${fmtPercent(worst.depth, 2)}, ${worst.start} to ${worst.trough}` : 'none: never below a high'],
    ...(worst ? [['Recovered from it', worst.recovery ?? 'not by the end'] as Cell[]] : []),
    [`Monte Carlo drawdown (between sales)`, t.monteCarlo ? monteCarloCell(t.monteCarlo) : 'under 2 trades: none'],
  ];
  return { columns: ['Measure', 'Value'], rows, rowCount: rows.length, truncated: false };
}

function monthlyTable(t: Tearsheet): AnswerTable {
  const years = [...new Set(t.monthly.map((m) => m.month.slice(0, 4)))];
  const rows = years.map((y) => {
    const cells: Cell[] = [y];
    let year = 1;
    for (let m = 1; m <= 12; m++) {
      const found = t.monthly.find((x) => x.month === `${y}-${String(m).padStart(2, '0')}`);
      cells.push(found ? fmtPercent(found.ret, 1) : '');
      if (found) year *= 1 + found.ret;
    }
    cells.push(fmtPercent(year - 1, 1));
    return cells;
  });
  return { columns: ['Year', ...MONTHS, 'Year total'], rows, rowCount: rows.length, truncated: false };
}

function drawdownTable(t: Tearsheet): AnswerTable {
  const rows = t.drawdowns
    .slice(0, DRAWDOWN_ROWS)
    .map((p) => [p.start, p.trough, p.recovery ?? 'not recovered', fmtPercent(p.depth, 2), fmtInt(p.days)] as Cell[]);
  return {
    columns: ['Start (peak)', 'Trough', 'Recovery', 'Depth', 'Trading days'],
    rows,
    rowCount: t.drawdowns.length,
    truncated: t.drawdowns.length > rows.length,
  };
}

/** The one chart: the equity curve, and beneath it on the right axis its drawdown from the running peak. */
export function tearsheetChart(title: string, dates: readonly string[], equity: readonly number[]): ChartSpec {
  let peak = -Infinity;
  const drawdown = equity.slice(1).map((e) => {
    peak = Math.max(peak, e, equity[0]);
    return Math.round(((e - peak) / peak) * 10_000) / 100;
  });
  return {
    kind: 'line',
    title,
    labels: [...dates],
    series: [
      { name: 'Equity (yuan)', values: equity.slice(1).map((e) => Math.round(e * 100) / 100), axis: 'left', fill: false },
      { name: 'Drawdown (%)', values: drawdown, axis: 'right', fill: true },
    ],
    yLabel: 'yuan',
    y2Label: 'drawdown %',
  };
}

export interface TearsheetPart {
  sentence: string;
  tables: { title: string; table: AnswerTable }[];
}

function tearsheetPart(label: string, input: TearsheetInput): TearsheetPart {
  return tearsheetTables(label, tearsheet(input));
}

/** The same from a tearsheet already computed (a portfolio's, on its worker thread with the run). */
export function tearsheetTables(label: string, t: Tearsheet): TearsheetPart {
  return {
    sentence: t.monteCarlo ? monteCarloSentence(t.monteCarlo) : '',
    tables: [
      { title: `Tearsheet of ${label}`, table: summaryTable(t) },
      { title: `Monthly returns of ${label}`, table: monthlyTable(t) },
      { title: `Drawdown periods of ${label} (deepest first)`, table: drawdownTable(t) },
    ],
  };
}

/** What the exits and day rules did, in a sentence ('' when none was asked for). */
function rulesSentence(r: RulesReport | undefined): string {
  if (!r) return '';
  const n = (k: number, one: string, many = `${one}s`) => (k ? `${fmtInt(k)} ${k === 1 ? one : many}` : '');
  const exits = [n(r.stopLosses, 'stop-loss', 'stop-losses'), n(r.takeProfits, 'take-profit'), n(r.trailingStops, 'trailing stop')].filter(
    Boolean,
  );
  const held = [
    r.gapFills ? `${n(r.gapFills, 'exit')} filled at the open on a gap through the level` : '',
    r.heldByT1 ? `${n(r.heldByT1, 'exit')} touched on the day of the buy, held by T+1` : '',
    r.buysBlockedByLimit ? `${n(r.buysBlockedByLimit, 'buy')} waited for a day off the limit-up price` : '',
    r.salesBlockedByLimit ? `${n(r.salesBlockedByLimit, 'sale')} waited for a day off the limit-down price` : '',
    r.partialFills ? `${n(r.partialFills, 'order')} filled in part by the volume cap (${n(r.daysCarried, 'day')} carried)` : '',
  ].filter(Boolean);
  return `Exits: ${exits.length ? exits.join(', ') : 'none fired'}${held.length ? `; ${held.join('; ')}` : ''}.`;
}

/** The hook for a single run's answer: what its rules did, and its tearsheet when asked (tables after the others, the Monte Carlo line in the narration). */
export function addTraderParts(
  answer: { narration: string; extraTables: { title: string; table: AnswerTable }[] },
  spec: Pick<StrategySpec, 'tearsheet'>,
  c: Candidate,
): void {
  const rules = rulesSentence(c.simulation.rules);
  if (rules) answer.narration = `${answer.narration} ${rules}`;
  if (!spec.tearsheet) return;
  const part = tearsheetPart(c.label, { dates: c.ticker.dates, equity: c.simulation.equity, trades: c.simulation.trades });
  answer.extraTables.push(...part.tables);
  if (part.sentence) answer.narration = `${answer.narration} ${part.sentence}`;
}
