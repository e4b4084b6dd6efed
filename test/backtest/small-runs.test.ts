// Small work stays on the calling thread (run-threaded.ts INLINE_BARS): a cold process answers one ticker without
// starting a worker thread, with runSpec's numbers to the bit; a portfolio whose members' bars are many runs on a
// thread and gives the same doubles as on this one.
import { afterAll, describe, expect, it } from 'vitest';
import { compareWinner } from '../../src/backtest/comparisons.js';
import type { Bars } from '../../src/backtest/expr/compile.js';
import type { MarketIndex } from '../../src/backtest/benchmark.js';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { portfolioMembers, portfolioRun } from '../../src/backtest/run-portfolio.js';
import { runSpec, type TickerBars } from '../../src/backtest/run-spec.js';
import { compareThreaded, INLINE_BARS, runPortfolioThreaded, runSpecThreaded } from '../../src/backtest/run-threaded.js';
import { destroyWorkerPool, workerThreads } from '../../src/backtest/threads/pool.js';
import { portfolioJob } from '../../src/backtest/threads/tasks.js';

afterAll(() => destroyWorkerPool());

/** Weekdays from 2020-01-02, a seeded random walk per ticker: open, close, high, low, volume. */
function walk(code: string, days: number, seed: number): TickerBars {
  let s = seed;
  const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const dates: string[] = [];
  for (let d = new Date('2020-01-02T00:00:00Z'); dates.length < days; d.setUTCDate(d.getUTCDate() + 1))
    if (d.getUTCDay() % 6 !== 0) dates.push(d.toISOString().slice(0, 10));
  const [OPEN, CLOSE, HIGH, LOW, VOLUME] = [0, 0, 0, 0, 0].map(() => new Float64Array(days));
  let p = 10 + 20 * rnd();
  for (let i = 0; i < days; i++) {
    OPEN[i] = Math.round(p * (1 + (rnd() - 0.5) * 0.02) * 100) / 100;
    p = Math.round(p * (1 + (rnd() - 0.5) * 0.06) * 100) / 100;
    CLOSE[i] = p;
    HIGH[i] = Math.max(OPEN[i], CLOSE[i]) + 0.1;
    LOW[i] = Math.min(OPEN[i], CLOSE[i]) - 0.1;
    VOLUME[i] = Math.round(100_000 + 1_000_000 * rnd());
  }
  return { code, name: `Company ${code}`, dates, bars: { OPEN, CLOSE, HIGH, LOW, VOLUME } as Bars };
}

const market = (tickers: TickerBars[]): MarketIndex => {
  const returns = new Map<string, number>();
  tickers[0].dates.forEach((d, i) => {
    if (i) returns.set(d, tickers.reduce((s, t) => s + t.bars.CLOSE![i] / t.bars.CLOSE![i - 1] - 1, 0) / tickers.length);
  });
  return { returns, members: tickers.length };
};

describe('small work on the calling thread', () => {
  it("one ticker's run and its comparisons start no worker thread and give runSpec's numbers to the bit", async () => {
    const { spec } = parseRuleSyntax(
      '600519 2020..2025 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 costs: china stop: 8% trail: 15%',
    );
    const ticker = walk('600519', 1_400, 7);
    const threaded = await runSpecThreaded(spec, [ticker]);
    const here = runSpec(spec, [ticker]);
    expect(threaded.candidates[0].simulation.trades.length).toBeGreaterThan(3);
    expect(threaded.candidates[0].simulation).toEqual(here.candidates[0].simulation);
    for (const [k, v] of Object.entries(here.candidates[0].kpis))
      expect(Object.is(threaded.candidates[0].kpis[k as keyof (typeof here.candidates)[0]['kpis']], v)).toBe(true);
    const index = market([ticker, walk('600000', 1_400, 9)]);
    const compared = await compareThreaded(spec, [ticker], threaded.candidates[0], index);
    expect(compared).toEqual(compareWinner({ spec, ticker, strategy: 0, market: index }));
    expect(compared.market?.members).toBe(2);
    expect(workerThreads()).toBe(0);
  });

  it('a portfolio of 20 tickers over 1,400 days runs on a thread, with the same doubles as on this one', async () => {
    const tickers = Array.from({ length: 20 }, (_, i) => walk(String(600000 + i), 1_400, 100 + i));
    expect(20 * 1_400).toBeGreaterThan(INLINE_BARS);
    const codes = tickers.map((t) => t.code).join(',');
    const { spec } = parseRuleSyntax(`portfolio ${codes} 2020..2025 rebalance: monthly costs: china stop: 8% trail: 15% volume-cap: 10%`);
    const index = market(tickers);
    const threaded = await runPortfolioThreaded(spec, tickers, index);
    expect(workerThreads()).toBeGreaterThan(0);
    const here = portfolioRun(spec, portfolioMembers(spec, tickers), portfolioJob({ spec, members: tickers, market: index }));
    expect(threaded.portfolio.counts.stopLosses + threaded.portfolio.counts.trailingStops).toBeGreaterThan(0);
    expect(threaded.portfolio.equity.every((e, i) => Object.is(e, here.portfolio.equity[i]))).toBe(true);
    expect(threaded.portfolio).toEqual(here.portfolio);
    expect(threaded.candidates[0].kpis).toEqual(here.candidates[0].kpis);
    expect(threaded.market).toEqual(here.market);
    expect(threaded.market!.members).toBe(20);
  });
});
