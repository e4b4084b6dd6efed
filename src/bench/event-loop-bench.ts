// npm run bench -- event-loop: issue 35's whole-market backtest ("compare all
// 2020..2025 buy: MACD_CROSS_UP sell: MACD_CROSS_DOWN kpi: sharpe") through
// the agent in this process, while a /healthz on this process is polled every
// 20 ms and perf_hooks watches the event loop: the delay's p99 and max, the
// polls' p99 and max, and whether the max stays under 100 ms. With --profile,
// the main thread's CPU profile of each run (node:inspector), its heaviest
// functions by self time (file:function:line, ms): what held the loop.
import { Session, type Profiler } from 'node:inspector/promises';
import type pg from 'pg';
import type { Logger } from '../core/logger.js';
import { runBacktest } from '../agents/backtest/agent.js';
import { makeAnswer, type Cell } from '../core/answer.js';
import { shownResult } from '../core/inert-text.js';
import type { Candidate } from '../backtest/run-spec.js';
import { destroyWorkerPool, poolSize } from '../backtest/threads/pool.js';
import { watchLoop } from './loop-watch.js';

const COMMAND = 'compare all 2020..2025 buy: MACD_CROSS_UP sell: MACD_CROSS_DOWN kpi: sharpe';
/** The bound on the event loop's delay and on /healthz during the run. */
const LIMIT_MS = 100;

function tableChecks(candidates: Candidate[]): string {
  const kpis = Object.keys(candidates[0]?.kpis ?? {});
  const rows: Cell[][] = candidates.map((c) => [
    c.ticker.code,
    c.ticker.name,
    ...kpis.map((k) => {
      const v = (c.kpis as unknown as Record<string, unknown>)[k];
      return typeof v === 'number' && Number.isFinite(v) ? v : null;
    }),
  ]);
  const columns = ['code', 'name', ...kpis];
  let t = performance.now();
  const shown = shownResult({ columns, rows });
  const shownMs = performance.now() - t;
  t = performance.now();
  makeAnswer({
    kind: 'result',
    route: 'backtest',
    trace: [],
    headline: 'every candidate',
    narration: 'every candidate',
    sql: [],
    table: { ...shown, rowCount: rows.length, truncated: false },
    assumptions: [],
    notes: [],
  });
  return `a table of all ${rows.length.toLocaleString('en-US')} candidates x ${columns.length} columns: shownResult ${shownMs.toFixed(1)} ms, makeAnswer ${(performance.now() - t).toFixed(1)} ms`;
}

/** The functions that held the main thread longest (self time), as file:function ms. */
function heaviest(profile: Profiler.Profile, count: number): string[] {
  const self = new Map<number, number>();
  profile.samples?.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0)));
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    const file = url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules\/|\.?dist[^/]*\/|src\/)/, '$1');
    const key = `${file || '(native)'}:${functionName || '(anonymous)'}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + (self.get(node.id) ?? 0));
  }
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
}

export async function eventLoopBench(pool: pg.Pool, logger: Logger, o: { runs: number; profile: boolean }): Promise<void> {
  const session = o.profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
  }
  const deps = { pool, statementTimeoutMs: 300_000, logger };
  let worst = 0;
  try {
    console.log(`"${COMMAND}" through the agent in this process, engine on ${poolSize()} worker threads:`);
    for (let run = 1; run <= o.runs; run++) {
      let headline = '';
      let candidates: Candidate[] = [];
      await session?.post('Profiler.start');
      const w = await watchLoop(async () => {
        const { answer, result } = await runBacktest(COMMAND, deps);
        headline = answer.kind === 'result' ? answer.headline : `${answer.kind}: ${JSON.stringify(answer).slice(0, 200)}`;
        candidates = result?.candidates ?? [];
      });
      worst = Math.max(worst, w.loopMax, w.healthMax);
      console.log(
        `  run ${run}${run === 1 ? ' (bar cache empty)' : ''}: ${(w.ms / 1000).toFixed(2)} s; event-loop delay p99 ${w.loopP99.toFixed(1)} ms, ` +
          `max ${w.loopMax.toFixed(0)} ms; /healthz p99 ${w.healthP99.toFixed(1)} ms, max ${w.healthMax.toFixed(0)} ms (${w.polls} polls); ${headline}`,
      );
      if (candidates.length) console.log(`    ${tableChecks(candidates)}`);
      if (session) {
        const { profile } = await session.post('Profiler.stop');
        console.log(`    the main thread's heaviest functions in run ${run} (self time):`);
        for (const line of heaviest(profile, 8)) console.log(`    ${line}`);
      }
    }
    console.log(`worst event-loop delay or /healthz: ${worst.toFixed(0)} ms: ${worst < LIMIT_MS ? 'under' : 'NOT under'} ${LIMIT_MS} ms`);
  } finally {
    session?.disconnect();
    await destroyWorkerPool();
  }
}
