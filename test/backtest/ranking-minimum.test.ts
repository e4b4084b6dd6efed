// Honest rankings, by hand: a minimum history and number of round trips, the candidates below it listed apart,
// the winner against its own buy and hold, and grid pairs that never traded left out of the medians.
import { describe, expect, it } from 'vitest';
import { honestRanking, DEFAULT_MINIMUM } from '../../src/backtest/ranking.js';
import { runSpec, type TickerBars } from '../../src/backtest/run-spec.js';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { compareWinner } from '../../src/backtest/comparisons.js';
import type { Bars } from '../../src/backtest/expr/compile.js';
import { rankForAnswer, readRankingOptions } from '../../src/agents/backtest/ranking-options.js';
import { answerParts } from '../../src/agents/backtest/answer-parts.js';

describe('the ranking minimum', () => {
  // the protocol's order: 2 (29 days, 1 trip), 0 (250 days, 5 trips), 1 (250 days, no trades), 3 (250 days, 2 trips)
  const records = [
    { days: 250, trades: 5 },
    { days: 250, trades: 0 },
    { days: 29, trades: 1 },
    { days: 250, trades: 2 },
  ];

  it('60 trading days and 1 round trip by default: the short record and the one that never traded are listed apart', () => {
    const r = honestRanking([2, 0, 1, 3], (i) => records[i], DEFAULT_MINIMUM);
    expect(r.minimum).toEqual({ days: 60, trades: 1 });
    expect(r.ranked).toEqual([0, 3]);
    expect(r.apart).toEqual([
      { index: 2, why: '29 trading days' },
      { index: 1, why: 'no trades' },
    ]);
  });

  it('a window shorter than the minimum asks for the whole window; min-trades: 3 leaves one', () => {
    const short = records.map((r) => ({ ...r, days: Math.min(r.days, 40) }));
    const r = honestRanking([2, 0, 1, 3], (i) => short[i], { days: 60, trades: 3 });
    expect(r.minimum).toEqual({ days: 40, trades: 3 });
    expect(r.ranked).toEqual([0]);
    expect(r.apart.map((a) => a.why)).toEqual(['29 trading days, 1 round trip', 'no trades', '2 round trips']);
  });

  it('min-days: and min-trades: are read from anywhere in a request and taken out of it', () => {
    expect(readRankingOptions('compare all 2021 buy: MACD_CROSS_UP min-days: 120 sell: MACD_CROSS_DOWN min-trades: 3 kpi: sharpe')).toEqual(
      {
        text: 'compare all 2021 buy: MACD_CROSS_UP sell: MACD_CROSS_DOWN kpi: sharpe',
        minimum: { days: 120, trades: 3 },
        given: ['min-days: 120', 'min-trades: 3'],
      },
    );
    expect(readRankingOptions('600519 2021 buy: RSI(14) < 30').minimum).toEqual(DEFAULT_MINIMUM);
  });
});

/** Daily bars from closes: each day opens at the previous close (the first at its own close). */
function ticker(code: string, start: number, closes: number[]): TickerBars {
  const dates = closes.map((_, i) => new Date(Date.UTC(2023, 0, 2 + start + i)).toISOString().slice(0, 10));
  const open = closes.map((c, i) => (i ? closes[i - 1] : c));
  return { code, name: `Company ${code}`, dates, bars: { OPEN: Float64Array.from(open), CLOSE: Float64Array.from(closes) } as Bars };
}

describe('a ranking headlines a winner with a record', () => {
  // A: 100 days from 10 to 12.475 (+0.25 every 4 days... a steady rise); B: listed late, 29 days, 10 -> 20 (+100%)
  const a = ticker(
    '600001',
    0,
    Array.from({ length: 100 }, (_, i) => 10 + i * 0.025),
  );
  const b = ticker(
    '600002',
    71,
    Array.from({ length: 29 }, (_, i) => 10 + (i * 10) / 28),
  );
  const spec = parseRuleSyntax('compare 600001,600002 2023 buy: {OPEN > 0} sell: {OPEN > 1000} kpi: return').spec;
  const result = runSpec(spec, [a, b]);

  it('the protocol ranks the 29-day ticker first; the answer headlines the one with 60 days and says the other is apart', async () => {
    // the protocol's ranking is untouched: B first
    expect(result.candidates[result.ranking[0]].ticker.code).toBe('600002');
    const ranked = rankForAnswer(spec, result, DEFAULT_MINIMUM);
    const winner = result.candidates[ranked.winner];
    expect(winner.ticker.code).toBe('600001');
    const comparisons = compareWinner({ spec, ticker: winner.ticker, strategy: 0 });
    const parts = await answerParts(spec, result, { ...ranked, comparisons, kpiGiven: true });
    // bought at the first open (10), held to the last close (12.475), whole lots: the strategy is its own buy and hold
    // (bought on day 0 at the same open), so it did not beat it
    const r = winner.kpis.return_ratio!;
    expect(comparisons.hold.return).toBeCloseTo(r, 12);
    expect(parts.headline).toBe(
      `Best ticker by Return: 600001 Company 600001 (${(r * 100).toFixed(2)}%); it did not beat holding the stock (${(r * 100).toFixed(2)}% against ${(r * 100).toFixed(2)}%)`,
    );
    expect(parts.table.rows.map((row) => [row[0], row.at(-1)])).toEqual([
      ['600001 Company 600001', ''],
      ['600002 Company 600002', 'not ranked: 29 trading days'],
    ]);
    expect(parts.narration).toContain(
      'Listed apart, below the minimum (at least 60 trading days and 1 round trip; min-days: and min-trades: change it): 1 candidate, 600002 Company 600002 (29 trading days, return ',
    );
  });
});

describe('a grid pair that never traded', () => {
  // closes around 10: MA > 50 never buys, MA > 5 buys as soon as the average is defined
  const t = ticker(
    '600001',
    0,
    Array.from({ length: 30 }, (_, i) => 10 + Math.sin(i) + i * 0.05),
  );
  const spec = parseRuleSyntax('600001 2023 buy: MA(2|3) > 5|50 kpi: return').spec;
  const result = runSpec(spec, [t]);

  it('is "no trades" in the grid, empty on the heat map, and out of the median and the plateau test', async () => {
    const ranked = rankForAnswer(spec, result, DEFAULT_MINIMUM);
    const winner = result.candidates[ranked.winner];
    const parts = await answerParts(spec, result, {
      ...ranked,
      comparisons: compareWinner({ spec, ticker: t, strategy: 0, values: winner.values }),
      kpiGiven: true,
    });
    expect(result.candidates.map((c) => c.roundTrips)).toEqual([1, 0, 1, 0]);
    const grid = parts.extraTables.find((x) => x.title === 'Return of every pair')!.table;
    expect(grid.rows.map((r) => r.slice(1))).toEqual([
      [expect.stringMatching(/%$/), 'no trades'],
      [expect.stringMatching(/%$/), 'no trades'],
    ]);
    expect(parts.chart.series[1].values).toEqual([null, null]);
    expect(parts.chart.title).toContain('(n/a: never traded)');
    // the median of the pairs that traded: the mean of the two MA > 5 returns, not a median pulled to 0.00% by the others
    const traded = [result.candidates[0], result.candidates[2]].map((c) => c.kpis.return_ratio!);
    const median = ((traded[0] + traded[1]) / 2) * 100;
    expect(parts.narration).toContain('The grid has 2 × 2 = 4 pairs (2 never traded: left out of the medians).');
    expect(parts.narration).toContain(`(the whole grid that traded: ${median.toFixed(2)}%)`);
    expect(parts.narration).toContain('The 1 pair around the best that traded has a median return of ');
    // no-trade pairs are apart in the ranking too
    expect(ranked.ranking!.apart.map((x) => x.why)).toEqual(['no trades', 'no trades']);
  });
});
