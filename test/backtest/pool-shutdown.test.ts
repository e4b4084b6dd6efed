// Destroying the worker pool while its threads still start, or while a task
// loads the engine, must not abort the process (issue 37: Node aborted on a
// V8 check, IsGraphAsync, when the pool was destroyed while a second thread was
// still loading). The pool waits for loads to finish (threads/loading.ts);
// here it is destroyed at every moment of a second thread's start, many times.
import { describe, expect, it } from 'vitest';
import type { Bars } from '../../src/backtest/expr/compile.js';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { runSpec, type TickerBars } from '../../src/backtest/run-spec.js';
import { runSpecThreaded } from '../../src/backtest/run-threaded.js';
import { destroyWorkerPool, poolSize, workerThreads } from '../../src/backtest/threads/pool.js';

/** Weekdays from 2020-01-02, a seeded random walk. */
function walk(code: string, days: number, seed: number): TickerBars {
  let s = seed;
  const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const dates: string[] = [];
  for (let d = new Date('2020-01-02T00:00:00Z'); dates.length < days; d.setUTCDate(d.getUTCDate() + 1))
    if (d.getUTCDay() % 6 !== 0) dates.push(d.toISOString().slice(0, 10));
  const OPEN = new Float64Array(days);
  const CLOSE = new Float64Array(days);
  let p = 10 + 20 * rnd();
  for (let i = 0; i < days; i++) {
    OPEN[i] = Math.round(p * (1 + (rnd() - 0.5) * 0.02) * 100) / 100;
    p = Math.round(p * (1 + (rnd() - 0.5) * 0.06) * 100) / 100;
    CLOSE[i] = p;
  }
  return { code, name: `Company ${code}`, dates, bars: { OPEN, CLOSE } as Bars };
}

// twelve tickers of 1,400 days: above the calling thread's share, so the tasks queue and a second thread starts
const tickers = Array.from({ length: 12 }, (_, i) => walk(String(600000 + i), 1_400, 50 + i));
const { spec } = parseRuleSyntax(`compare ${tickers.map((t) => t.code).join(',')} 2020..2025 buy: RSI(14) < 30 sell: RSI(14) > 70`);
const plain = (candidates: { label: string; kpis: unknown }[]) => candidates.map((c) => [c.label, c.kpis]);
const expected = plain(runSpec(spec, tickers).candidates);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('destroying the worker pool', () => {
  it('right after a task starts a second thread, and at every moment of its start, 30 times: no abort, a clean stop', async () => {
    let secondThreads = 0;
    for (let i = 0; i < 30; i++) {
      const run = runSpecThreaded(spec, tickers).then(
        (r) => plain(r.candidates),
        (e: Error) => e.message,
      );
      // at once, then later and later into the threads' start and their first load of the engine
      await sleep(i === 0 ? 0 : (i * 7) % 120);
      if (workerThreads() > 1) secondThreads++;
      await destroyWorkerPool();
      expect(workerThreads()).toBe(0);
      const outcome = await run;
      // finished before the stop with runSpec's numbers, or stopped: refused a load, or its thread terminated. Once
      // in about 700 stops Node's require(esm) fallback in piscina fails the task that was loading with its own
      // message ("Unexpected status of a module that is imported again after being required"): still a clean stop,
      // the process goes on, which is what this test holds
      if (typeof outcome === 'string')
        expect(outcome).toMatch(
          /^(the worker pool is shutting down|Terminating worker thread|Unexpected status of a module that is imported again after being required.*)$/,
        );
      else expect(outcome).toEqual(expected);
    }
    if (poolSize() > 1) expect(secondThreads).toBeGreaterThan(20);
    // and the next task starts a new pool that works
    expect(plain((await runSpecThreaded(spec, tickers)).candidates)).toEqual(expected);
    await destroyWorkerPool();
  }, 120_000);
});
