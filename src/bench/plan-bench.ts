// The plan answers at the benchmark database's size (npm run bench -- sql --rows 8500000):
// every benchmark question the offline reader reads, its query timed from the
// rollup the compiler picks and from crimes (the rows must be the same), 200
// random plans over the whole plan language (src/plan/random-plans.ts) timed
// as they run, then whole answers through the desk (read, compile, validate,
// run, facts, narrate) one at a time and 200 at once. A query runs as the run
// node runs it: moved onto a rollup by aggregate navigation where one holds it.
import type pg from 'pg';
import { readPlanContext } from '../agents/sql/agent.js';
import { createDesk } from '../agents/create-desk.js';
import { runSql } from '../agents/sql/execute.js';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { openDatabase } from '../db/database.js';
import { benchmarkPlans } from '../eval/benchmark-plans.js';
import { compilePlan, PlanCompileError } from '../plan/compile.js';
import { randomPlans } from '../plan/random-plans.js';
import { planShape } from '../plan/rollup-choice.js';
import { navigateAggregates } from '../db/aggregate-navigation.js';
import { quantile } from './stats.js';

const ms = (xs: number[], q: number) => quantile(xs, q).toFixed(1);
const RUNS = 5;

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await f();
  return [value, performance.now() - t];
}

/** The median of `runs` runs after one warm-up, and the rows. */
async function medianRun(pool: pg.Pool, sql: string, timeoutMs: number, runs = RUNS) {
  const first = await runSql(pool, sql, timeoutMs);
  const times: number[] = [];
  for (let k = 0; k < runs; k++) times.push((await timed(() => runSql(pool, sql, timeoutMs)))[1]);
  return { rows: JSON.stringify(first.rows), ms: quantile(times, 0.5) };
}

/**
 * The SQL as the run node runs it, and the table its counts come from: the compiler's rollup, or the rollups
 * aggregate navigation moved it onto; crimes while its counts still read crimes (a list of the places found,
 * moved onto a rollup, does not make a count over crimes fast).
 */
async function asRun(compiled: { sql: string; rollup?: string }): Promise<{ sql: string; from: string }> {
  const moved = await navigateAggregates(compiled.sql);
  const sql = moved?.sql ?? compiled.sql;
  const readsCrimes = /\b(?:FROM|JOIN)\s+crimes\b/i.test(sql);
  return { sql, from: compiled.rollup ?? (moved && !readsCrimes ? `${moved.rollups.join('+')} (moved)` : 'crimes') };
}

const row = (label: string, xs: number[]) =>
  `  ${label} | ${ms(xs, 0.5)} | ${ms(xs, 0.9)} | ${ms(xs, 0.99)} | ${Math.max(...xs).toFixed(1)}`;

/** 200 random plans, each timed as it runs (median of 3 after a warm-up): the figure a person's own questions meet. */
async function randomPlansBench(pool: pg.Pool, timeout: number): Promise<void> {
  const { rows } = await pool.query<{ lo: number; hi: number }>('SELECT min(year) AS lo, max(year) AS hi FROM crimes_by_year_type');
  const times: number[] = [];
  const tables = new Map<string, number>();
  const slow: { ms: number; from: string; plan: string }[] = [];
  const shapes = new Map<string, { plans: number; ms: number[] }>();
  for (const p of randomPlans(200, 35, [rows[0].lo, rows[0].hi])) {
    let compiled;
    try {
      compiled = compilePlan(p.plan, p.choices);
    } catch (error) {
      if (error instanceof PlanCompileError) continue;
      throw error;
    }
    const run = await asRun(compiled);
    const t = (await medianRun(pool, run.sql, timeout, 3)).ms;
    times.push(t);
    const table = run.from.replace(/ \(moved\)$/, '');
    tables.set(table, (tables.get(table) ?? 0) + 1);
    slow.push({ ms: t, from: run.from, plan: JSON.stringify({ ...p.plan, chart: undefined }) });
    if (table === 'crimes') {
      const key = planShape(p.plan, p.choices);
      const shape = shapes.get(key) ?? { plans: 0, ms: [] };
      shape.plans++;
      shape.ms.push(t);
      shapes.set(key, shape);
    }
  }
  const fromCrimes = tables.get('crimes') ?? 0;
  console.log(
    `random plans (src/plan/random-plans.ts, seed 35): ${times.length} compiled of 200; ${times.length - fromCrimes} from rollups, ${fromCrimes} from crimes`,
  );
  console.log(row('as run (median of 3 per plan)    ', times));
  for (const s of slow.sort((a, b) => b.ms - a.ms).slice(0, 5)) console.log(`    ${s.ms.toFixed(0)} ms from ${s.from}: ${s.plan}`);
  // what the plans read from crimes need that no rollup keeps together, costliest first: the shapes a rollup could take
  const costliest = [...shapes].sort((a, b) => b[1].ms.reduce((x, y) => x + y, 0) - a[1].ms.reduce((x, y) => x + y, 0));
  console.log(`  shapes read from crimes (${shapes.size}; places | time facets beyond the year), costliest 8: plans, total ms, max ms`);
  for (const [shape, { plans, ms: t }] of costliest.slice(0, 8))
    console.log(`    ${shape}: ${plans}, ${t.reduce((x, y) => x + y, 0).toFixed(0)}, ${Math.max(...t).toFixed(0)}`);
}

export async function planBench(config: Config, logger: Logger, benchUrl: string, concurrent: number): Promise<void> {
  const db = await openDatabase({ ...config, databaseUrl: benchUrl }, logger);
  try {
    const plans = benchmarkPlans(await readPlanContext(db.read));
    const timeout = 120_000;
    const fast: number[] = [];
    const raw: number[] = [];
    const rollupsUsed = new Map<string, number>();
    const slow: { id: string; ms: number; from: string }[] = [];
    for (const p of plans) {
      const compiled = compilePlan(p.plan, p.choices);
      const run = await asRun(compiled);
      const a = await medianRun(db.read, run.sql, timeout);
      const b = compiled.rollup ? await medianRun(db.read, compilePlan(p.plan, p.choices, { rollups: false }).sql, timeout) : a;
      if (a.rows !== b.rows) throw new Error(`${p.id} "${p.question}": the rollup ${compiled.rollup} and crimes give different rows`);
      fast.push(a.ms);
      raw.push(b.ms);
      const from = run.from;
      rollupsUsed.set(from, (rollupsUsed.get(from) ?? 0) + 1);
      slow.push({ id: p.id, ms: a.ms, from });
    }
    console.log(
      `plan questions: ${plans.length} of the benchmark's read by the offline reader; answered from ${[...rollupsUsed].map(([t, n]) => `${t} ${n}`).join(', ')}`,
    );
    console.log(`query time (median of ${RUNS} per question) | p50 ms | p90 ms | p99 ms | max ms`);
    console.log(
      `  as compiled (rollups where they hold) | ${ms(fast, 0.5)} | ${ms(fast, 0.9)} | ${ms(fast, 0.99)} | ${Math.max(...fast).toFixed(1)}`,
    );
    console.log(
      `  all from crimes                       | ${ms(raw, 0.5)} | ${ms(raw, 0.9)} | ${ms(raw, 0.99)} | ${Math.max(...raw).toFixed(1)}`,
    );
    console.log(
      `  slowest as compiled: ${slow
        .sort((x, y) => y.ms - x.ms)
        .slice(0, 5)
        .map((s) => `${s.id} ${s.ms.toFixed(0)} ms (${s.from})`)
        .join(', ')}`,
    );
    console.log('  the rows were identical both ways for every question');
    await randomPlansBench(db.read, timeout);

    // whole answers, as a worker gives them (no model: the reader's plans)
    const { desk, memory } = createDesk({ ...config, databaseUrl: benchUrl }, db, logger);
    try {
      const ask = (question: string, thread: string) =>
        desk.answer({ platform: 'cli', threadId: `bench:${thread}`, text: question, kind: 'question' });
      for (const p of plans) await ask(p.question, `warm-${p.id}`);
      const whole: number[] = [];
      for (const [i, p] of plans.entries()) {
        const [answer, t] = await timed(() => ask(p.question, `one-${i}`));
        if (answer.kind === 'error') throw new Error(`${p.id}: ${answer.message}`);
        whole.push(t);
      }
      console.log(
        `whole answer, one at a time (${plans.length} questions): p50 ${ms(whole, 0.5)} ms, p99 ${ms(whole, 0.99)} ms, max ${Math.max(...whole).toFixed(1)} ms`,
      );

      // many people at once, each in its own thread, the questions mixed: all queued at once, and answered
      // as a worker answers jobs, at most WORKER_CONCURRENCY at a time (the latency includes the wait)
      const slots = config.jobs.concurrency;
      const latencies: number[] = [];
      let errors = 0;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: slots }, async () => {
          for (let i = next++; i < concurrent; i = next++) {
            const answer = await ask(plans[i % plans.length].question, `many-${i}`);
            if (answer.kind === 'error') errors++;
            latencies.push(performance.now() - started);
          }
        }),
      );
      const wall = (performance.now() - started) / 1000;
      console.log(
        `${concurrent} mixed questions at once (one worker, ${slots} answering at a time, reader pool of ${config.reader.poolSize}): ${(concurrent / wall).toFixed(1)} answers/s, p50 ${ms(latencies, 0.5)} ms, p99 ${ms(latencies, 0.99)} ms, ${errors} errors`,
      );
    } finally {
      await memory.close();
    }
  } finally {
    await db.close();
  }
}
