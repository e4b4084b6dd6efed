// The parts of a backtest answer beyond the engine's result: the tables, the
// sentences and the chart. Everything they tell was computed with the run on
// the worker threads (backtest/comparisons.ts): this file only tells.
import type { AnswerTable, ChartSpec } from '../../core/answer.js';
import { MIN_OUT_OF_SAMPLE_DAYS } from '../../backtest/walk-forward.js';
import type { SpecResult } from '../../backtest/run-spec.js';
import type { StrategySpec } from '../../backtest/spec.js';
import {
  costComparisonTable,
  equityChart,
  headline,
  kpiTableInTurns,
  KPI_LABELS,
  marketSentence,
  narration,
  sweepHeatmap,
  sweepSentence,
  sweepTable,
  tradesTable,
  versusMarketTable,
  walkForwardSentence,
  walkForwardTable,
  type AnswerView,
} from './narrate.js';

export interface AnswerParts {
  headline: string;
  narration: string;
  table: AnswerTable;
  extraTables: { title: string; table: AnswerTable }[];
  chart: ChartSpec;
}

export async function answerParts(spec: StrategySpec, result: SpecResult, view: AnswerView): Promise<AnswerParts> {
  const best = result.candidates[view.winner];
  const { comparisons } = view;
  const extraTables = [{ title: `Trades of ${best.label}`, table: tradesTable(best) }];
  // the same run under the protocol's zero costs, beside it: what the costs changed
  if (comparisons.protocol)
    extraTables.unshift({ title: `${best.label}: with and without costs`, table: costComparisonTable(best, comparisons.protocol) });
  // the market beside the best run: the equal-weight index of the tickers trading over the same days
  const vs = comparisons.market;
  if (vs) extraTables.push({ title: `${best.label} against the market`, table: versusMarketTable(best, comparisons.hold, vs, vs.members) });
  // a walk-forward check of the pick: chosen on the first part of the window, then run on the rest
  let walked = '';
  if (comparisons.walkForwardTooShort !== undefined) {
    walked = `Walk-forward: the window has ${comparisons.walkForwardTooShort} trading days, too few to keep ${MIN_OUT_OF_SAMPLE_DAYS} out of sample; widen it.`;
  } else if (comparisons.walkForward) {
    walked = walkForwardSentence(comparisons.walkForward, spec.kpi);
    extraTables.unshift({
      title: 'Walk-forward: picked in sample, run out of sample',
      table: walkForwardTable(comparisons.walkForward, spec.kpi),
    });
  }
  // a grid of two parameters: the heat map is the chart, the grid a table, and a word on the best pair's neighbours
  const grid = spec.secondParameter !== undefined;
  if (grid) extraTables.unshift({ title: `${KPI_LABELS[spec.kpi]} of every pair`, table: sweepTable(spec, result) });
  return {
    headline: headline(spec, result, view),
    narration: [
      narration(spec, result, view),
      grid ? sweepSentence(spec, result, view.winner) : '',
      walked,
      vs ? marketSentence(vs, vs.members) : '',
    ]
      .filter(Boolean)
      .join(' '),
    table: await kpiTableInTurns(result, view.ranking),
    extraTables,
    chart: grid ? sweepHeatmap(spec, result) : equityChart(best, comparisons.hold.equity, vs?.equity),
  };
}
