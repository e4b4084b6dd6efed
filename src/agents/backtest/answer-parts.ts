// The parts of a backtest answer beyond the engine's result: the tables, the
// sentences and the chart, with the comparisons that need a run of their own
// (the same run without costs, the market over the same days, the walk-forward
// check of a pick).
import type { AnswerTable, ChartSpec } from '../../core/answer.js';
import { versusMarket } from '../../backtest/benchmark.js';
import { computeKpis } from '../../backtest/kpis.js';
import { planCandidates, simulateCandidate, type SpecResult } from '../../backtest/run-spec.js';
import type { StrategySpec } from '../../backtest/spec.js';
import { MIN_OUT_OF_SAMPLE_DAYS, walkForward } from '../../backtest/walk-forward.js';
import {
  costComparisonTable,
  equityChart,
  headline,
  kpiTable,
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
} from './narrate.js';
import type { RetrievedData } from './retrieval.js';

export interface AnswerParts {
  headline: string;
  narration: string;
  table: AnswerTable;
  extraTables: { title: string; table: AnswerTable }[];
  chart: ChartSpec;
}

export function answerParts(spec: StrategySpec, result: SpecResult, data: RetrievedData): AnswerParts {
  const best = result.candidates[result.ranking[0]];
  const extraTables = [{ title: `Trades of ${best.label}`, table: tradesTable(best) }];
  if (spec.costs !== 'none') {
    // the same run under the protocol's zero costs, beside it: what the costs changed
    const protocol = simulateCandidate({ ...spec, costs: 'none' }, best.ticker, best.strategy, best.values);
    extraTables.unshift({
      title: `${best.label}: with and without costs`,
      table: costComparisonTable(best, { kpis: computeKpis(protocol), trades: protocol.trades.length }),
    });
  }
  // the market beside the best run: the equal-weight index of every loaded ticker over the same days
  const market = data.market && data.market.members > 0 ? data.market : undefined;
  const vs = market && versusMarket(best.simulation.equity, best.ticker.dates, market);
  if (vs) extraTables.push({ title: `${best.label} against the market`, table: versusMarketTable(best, spec, vs, market!.members) });
  // a walk-forward check of the pick: chosen on the first part of the window, then run on the rest
  let walked = '';
  if (spec.walkForward !== undefined) {
    const ticker = data.tickers[0];
    if (Math.round(ticker.dates.length * (1 - spec.walkForward)) < MIN_OUT_OF_SAMPLE_DAYS) {
      walked = `Walk-forward: the window has ${ticker.dates.length} trading days, too few to keep ${MIN_OUT_OF_SAMPLE_DAYS} out of sample; widen it.`;
    } else {
      const w = walkForward(spec, ticker, planCandidates(spec, data.tickers), spec.walkForward, spec.kpi);
      walked = walkForwardSentence(w, spec.kpi);
      extraTables.unshift({ title: 'Walk-forward: picked in sample, run out of sample', table: walkForwardTable(w, spec.kpi) });
    }
  }
  // a grid of two parameters: the heat map is the chart, the grid a table, and a word on the best pair's neighbours
  const grid = spec.secondParameter !== undefined;
  if (grid) extraTables.unshift({ title: `${KPI_LABELS[spec.kpi]} of every pair`, table: sweepTable(spec, result) });
  return {
    headline: headline(spec, result),
    narration: [
      narration(spec, result),
      grid ? sweepSentence(spec, result) : '',
      walked,
      vs ? marketSentence(best, vs, market!.members) : '',
    ]
      .filter(Boolean)
      .join(' '),
    table: kpiTable(result),
    extraTables,
    chart: grid ? sweepHeatmap(spec, result) : equityChart(best, spec, vs?.equity),
  };
}
