// A ranking's headline winner is a real winner: the best by the KPI that also beat holding its own stock over the
// same days; the best by the KPI that did not is named beside it, and when none beat its hold the headline says so.
// The table stays in the KPI's order. Returns computed by hand.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MINIMUM } from '../../../src/backtest/ranking.js';
import { runSpec, type TickerBars } from '../../../src/backtest/run-spec.js';
import { parseRuleSyntax } from '../../../src/backtest/rule-syntax.js';
import { compareWinner } from '../../../src/backtest/comparisons.js';
import type { Bars } from '../../../src/backtest/expr/compile.js';
import { rankForAnswer } from '../../../src/agents/backtest/ranking-options.js';
import { answerParts } from '../../../src/agents/backtest/answer-parts.js';

/** Daily bars from closes: each day opens at the previous close (the first at its own close). */
function ticker(code: string, closes: number[]): TickerBars {
  const dates = closes.map((_, i) => new Date(Date.UTC(2023, 0, 2 + i)).toISOString().slice(0, 10));
  const open = closes.map((c, i) => (i ? closes[i - 1] : c));
  return { code, name: `Company ${code}`, dates, bars: { OPEN: Float64Array.from(open), CLOSE: Float64Array.from(closes) } as Bars };
}
const round = (x: number) => Math.round(x * 100) / 100;
// 600001 rises 5 fen a day for 100 days: 10.00 to 14.95
const rising = ticker(
  '600001',
  Array.from({ length: 100 }, (_, i) => round(10 + 0.05 * i)),
);
// 600002 rises the same to 12.95 (day 59), then falls 5 fen a day to 10.95
const peaked = ticker(
  '600002',
  Array.from({ length: 100 }, (_, i) => round(i < 60 ? 10 + 0.05 * i : 12.95 - 0.05 * (i - 59))),
);
// 600003 rises 4 fen a day: 10.00 to 13.96
const slower = ticker(
  '600003',
  Array.from({ length: 100 }, (_, i) => round(10 + 0.04 * i)),
);
// buy when yesterday closed up, sell when yesterday closed down
const RULES = 'buy: {DELAY(CLOSE,1) > DELAY(CLOSE,2)} sell: {DELAY(CLOSE,1) < DELAY(CLOSE,2)} kpi: sharpe';

async function answer(line: string, tickers: TickerBars[]) {
  const { spec } = parseRuleSyntax(line);
  const result = runSpec(spec, tickers);
  const ranked = rankForAnswer(spec, result, DEFAULT_MINIMUM);
  const winner = result.candidates[ranked.winner];
  const comparisons = compareWinner({ spec, ticker: winner.ticker, strategy: 0 });
  return { result, ranked, parts: await answerParts(spec, result, { ...ranked, comparisons, kpiGiven: true }) };
}

describe('the headline winner beat holding its stock', () => {
  it('passes over the best Sharpe that lost to its buy and hold, names it, and keeps the table in Sharpe order', async () => {
    const { result, ranked, parts } = await answer(`compare 600001,600002 2023 ${RULES}`, [rising, peaked]);
    // 600001: bought on day 2 at 10.05 (995 lots, 99,500 shares, 25 yuan left), held to 14.95: 1,487,550, +48.755%;
    //   holding it: 1,000 lots at 10.00 to 14.95: 1,495,000, +49.5%; a smooth rise, the higher Sharpe
    // 600002: bought on day 2 at 10.05, sold on day 61 (day 60 closed down) at 12.85: 1,278,600, +27.86%;
    //   holding it to 10.95: 1,095,000, +9.5%
    const [first, second] = result.ranking.map((i) => result.candidates[i]);
    expect(first.ticker.code).toBe('600001');
    expect(first.kpis.return_ratio).toBeCloseTo(0.48755, 9);
    expect(second.kpis.return_ratio).toBeCloseTo(0.2786, 9);
    expect(first.kpis.sharpe_ratio!).toBeGreaterThan(second.kpis.sharpe_ratio!);
    expect(result.candidates[ranked.winner].ticker.code).toBe('600002');
    expect(ranked.hold).toMatchObject({ beat: true, ranked: 2, passedOver: { return: first.kpis.return_ratio }, above: 1 });
    expect(ranked.hold?.passedOver?.hold).toBeCloseTo(0.495, 12);
    const sharpe = (x: number | null) => x!.toFixed(2);
    // 48.755% as a double is a hair below it: shown as the engine's value, to two places
    const pct = (x: number | null) => `${(x! * 100).toFixed(2)}%`;
    expect(parts.headline).toBe(
      `Best ticker by Sharpe that beat holding the stock: 600002 Company 600002 (${sharpe(second.kpis.sharpe_ratio)}; 27.86% against 9.50% held); ` +
        `600001 Company 600001 ranks first by Sharpe (${sharpe(first.kpis.sharpe_ratio)}) but returned ${pct(first.kpis.return_ratio)} against 49.50% for holding it`,
    );
    // the ranking itself is the KPI's
    expect(parts.table.rows.map((r) => r[0])).toEqual(['600001 Company 600001', '600002 Company 600002']);
    // the narration tells the winner's run
    expect(parts.narration).toContain('the strategy on 600002 Company 600002 returned 27.86% (buy and hold: 9.50%)');
  });

  it('counts the others above the winner that lost to their holds', async () => {
    const { result, ranked, parts } = await answer(`compare 600001,600002,600003 2023 ${RULES}`, [rising, peaked, slower]);
    // by Sharpe: 600003, 600001 (both lost to their holds, above), then 600002
    expect(result.ranking.map((i) => result.candidates[i].ticker.code)).toEqual(['600003', '600001', '600002']);
    expect(result.candidates[ranked.winner].ticker.code).toBe('600002');
    expect(parts.headline).toMatch(
      /^Best ticker by Sharpe that beat holding the stock: 600002 Company 600002 \([\d.]+; 27\.86% against 9\.50% held\); 600003 Company 600003 ranks first by Sharpe \([\d.]+\) but returned 39\.04% against 39\.60% for holding it \(1 more above the winner did not beat theirs either\)$/,
    );
  });

  it('says plainly when no candidate beat holding its stock', async () => {
    const { result, ranked, parts } = await answer(`compare 600001,600003 2023 ${RULES}`, [rising, slower]);
    // 600003: 10.04 on day 2: 996 lots (99,600 shares, 16 yuan left) to 13.96: 1,390,432, +39.04%; holding: +39.6%
    // 600001 (above): +48.755% against +49.5%. The slower rise has the higher Sharpe and heads the answer
    expect(ranked.hold).toEqual({ beat: false, ranked: 2 });
    expect(result.candidates[ranked.winner]).toBe(result.candidates[result.ranking[0]]);
    expect(result.candidates[ranked.winner].kpis.return_ratio).toBeCloseTo(0.390432, 9);
    expect(parts.headline).toMatch(
      /^Best ticker by Sharpe: 600003 Company 600003 \([\d.]+\); none of the 2 ranked beat holding its own stock \(this one returned 39\.04% against 39\.60% for holding it\)$/,
    );
  });

  it('a parameter sweep on one ticker compares every value with the same buy and hold', async () => {
    // MA(2|3) > 0 buys on day 1 or day 2 and never sells: both lose to holding from day 0 on a rising stock
    const { ranked, parts } = await answer('600001 2023 buy: MA(2|3) > 0 kpi: return', [rising]);
    expect(ranked.hold).toEqual({ beat: false, ranked: 2 });
    expect(parts.headline).toMatch(
      /none of the 2 ranked beat holding the stock \(this one returned [\d.]+% against 49\.50% for holding it\)$/,
    );
    // on the peaked stock, bought near 10 and sold on the way down (the average is back below 11 only after the end): beats holding it
    const peakedRun = await answer('600002 2023 buy: MA(2|3) < 11 sell: {DELAY(CLOSE,1) < DELAY(CLOSE,2)} kpi: return', [peaked]);
    expect(peakedRun.ranked.hold?.beat).toBe(true);
    expect(peakedRun.parts.headline).toMatch(
      /^Best parameter by Return that beat holding the stock: MA\.n = \d \([\d.]+% against 9\.50% held\)$/,
    );
  });
});
