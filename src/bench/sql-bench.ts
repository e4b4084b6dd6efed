// npm run bench -- sql: the relevance gate's latency over the benchmark
// questions, and the non-LLM time of each benchmark question on the crimes of
// the benchmark database (8.5M rows after `bench -- ingest`): schema
// introspection, validation (guard + EXPLAIN), the run, the narration; then a
// perfect scripted model (the gold SQL as the model's, run as the run node runs
// it: moved onto a rollup where one holds it) and the seed paper's gap question
// as a plan.
import type pg from 'pg';
import { quantile } from './stats.js';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { route } from '../agents/router.js';
import { validateSql, runSql } from '../agents/sql/execute.js';
import { narrate } from '../agents/sql/narrator.js';
import { introspectSchema } from '../agents/sql/schema.js';
import { loadBenchmark } from '../eval/sql-eval.js';
import { openBenchDatabase } from './bench-database.js';
import { planBench } from './plan-bench.js';
import { readNamedQueries } from './index-bench.js';
import { fixturePath } from '../core/paths.js';
import { navigateAggregates } from '../db/aggregate-navigation.js';
import { compilePlan } from '../plan/compile.js';
import { parsePlan, type QueryPlanInput } from '../plan/query-plan.js';

const pct = (xs: number[], q: number) => (xs.length ? quantile(xs, q).toFixed(1) : '-');

/** The gold SQL moved onto a rollup as the run node moves it: its time (median of 3 after a warm-up); the rows must be the same. */
async function movedRun(pool: pg.Pool, sql: string, rows: unknown[], timeout: number): Promise<{ ms: number; to: string } | undefined> {
  const moved = await navigateAggregates(sql);
  if (!moved) return undefined;
  const first = await runSql(pool, moved.sql, timeout);
  if (JSON.stringify(first.rows) !== JSON.stringify(rows))
    throw new Error(`moved onto ${moved.rollups.join(', ')}, the rows differ:\n${moved.sql}`);
  const times: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    await runSql(pool, moved.sql, timeout);
    times.push(performance.now() - t);
  }
  return { ms: quantile(times, 0.5), to: moved.rollups.join('+') };
}

/** A perfect scripted model writes the gold SQL: how it runs once moved where a rollup holds it. */
function perfectModel(per: { id: string; run: number; moved?: { ms: number; to: string } }[]): void {
  const moved = per.filter((p) => p.moved);
  const stayed = per.filter((p) => !p.moved);
  const m = moved.map((p) => p.moved!.ms);
  console.log(
    `perfect scripted model (the gold SQL of ${per.length} questions, run as the run node runs it): ${moved.length} moved onto rollups, ${stayed.length} on crimes`,
  );
  console.log(`  moved     | p50 ${pct(m, 0.5)} ms | p99 ${pct(m, 0.99)} ms | max ${m.length ? Math.max(...m).toFixed(1) : '-'} ms`);
  const before = moved.map((p) => p.run);
  console.log(`  the same as written on crimes | p50 ${pct(before, 0.5)} ms | p99 ${pct(before, 0.99)} ms`);
  const s = stayed.map((p) => p.run);
  console.log(
    `  on crimes (no rollup holds them) | p50 ${pct(s, 0.5)} ms | p99 ${pct(s, 0.99)} ms; slowest: ${[...stayed]
      .sort((a, b) => b.run - a.run)
      .slice(0, 6)
      .map((p) => `${p.id} ${p.run.toFixed(0)} ms`)
      .join(', ')}`,
  );
}

/** The gap questions as plans (what a model that fills the plan sends): over some incidents one GROUP BY block, over all of them the blocks of a rollup. */
async function gapQuestions(pool: pg.Pool, timeout: number): Promise<void> {
  const questions: [string, QueryPlanInput][] = [
    ['average days between consecutive crimes on the same block (the seed paper)', { measure: { kind: 'average_gap', unit: 'day' } }],
    [
      'average hours between consecutive burglaries on the same block in 2019 (h06)',
      { measure: { kind: 'average_gap', unit: 'hour' }, filters: { types: ['BURGLARY'], time: { from: '2019-01-01', to: '2020-01-01' } } },
    ],
  ];
  for (const [question, plan] of questions) {
    const compiled = compilePlan(parsePlan(plan));
    const sql = compiled.sql;
    const times: number[] = [];
    let value: unknown;
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      value = (await runSql(pool, sql, timeout)).rows[0]?.[0];
      times.push(performance.now() - t);
    }
    // over every incident the blocks come from a rollup and each block's first and last incident from crimes' index
    const from = compiled.rollup ? `${compiled.rollup} and crimes' (block, date) index` : 'crimes';
    console.log(`  ${question} as a plan: ${(quantile(times, 0.5) / 1000).toFixed(2)} s from ${from} (median of 3; ${String(value)})`);
  }
}

export async function sqlBench(config: Config, logger: Logger, opts: { rows?: number; concurrent: number }): Promise<void> {
  const items = loadBenchmark();
  // gate: warm once, then time every question many times
  for (const i of items) route(i.question);
  const gate: number[] = [];
  for (let k = 0; k < 200; k++) {
    for (const i of items) {
      const t = performance.now();
      route(i.question);
      gate.push((performance.now() - t) * 1000);
    }
  }
  console.log(
    `relevance gate over ${items.length} questions x 200: median ${quantile(gate, 0.5).toFixed(1)} µs, p99 ${quantile(gate, 0.99).toFixed(1)} µs, max ${Math.max(...gate).toFixed(0)} µs`,
  );

  const db = await openBenchDatabase(config, logger, false);
  try {
    const { rows } = await db.pool.query('SELECT count(*) AS n FROM crimes');
    const n = Number(rows[0].n);
    if (opts.rows !== undefined && n < opts.rows) {
      throw new Error(
        `the benchmark database holds ${n.toLocaleString('en-US')} crimes, fewer than ${opts.rows.toLocaleString('en-US')}: load them first with npm run bench -- ingest --rows ${opts.rows}`,
      );
    }
    console.log(`crimes: ${n.toLocaleString('en-US')} rows`);
    let t = performance.now();
    await introspectSchema(db.pool);
    console.log(`schema introspection (cold, then cached for the process): ${(performance.now() - t).toFixed(0)} ms`);
    const timeout = 120_000;
    const per: { id: string; tier: string; validate: number; run: number; narrate: number; moved?: { ms: number; to: string } }[] = [];
    for (const i of items) {
      t = performance.now();
      const v = await validateSql(db.pool, i.sql, timeout);
      const validate = performance.now() - t;
      if (!v.ok) throw new Error(`${i.id} does not validate: ${v.error}`);
      t = performance.now();
      const result = await runSql(db.pool, i.sql, timeout);
      const run = performance.now() - t;
      t = performance.now();
      narrate(result);
      per.push({
        id: i.id,
        tier: i.tier,
        validate,
        run,
        narrate: performance.now() - t,
        moved: await movedRun(db.pool, i.sql, result.rows, timeout),
      });
    }
    console.log('tier | n | validate median ms | run median ms | run p90 ms | narrate median ms');
    for (const tier of ['easy', 'medium', 'hard']) {
      const of = per.filter((p) => p.tier === tier);
      console.log(
        `${tier} | ${of.length} | ${quantile(
          of.map((p) => p.validate),
          0.5,
        ).toFixed(1)} | ${quantile(
          of.map((p) => p.run),
          0.5,
        ).toFixed(0)} | ${quantile(
          of.map((p) => p.run),
          0.9,
        ).toFixed(0)} | ${quantile(
          of.map((p) => p.narrate),
          0.5,
        ).toFixed(2)}`,
      );
    }
    const slowest = [...per].sort((a, b) => b.run - a.run).slice(0, 5);
    console.log(`slowest runs: ${slowest.map((p) => `${p.id} ${(p.run / 1000).toFixed(2)} s`).join(', ')}`);
    perfectModel(per);
    await gapQuestions(db.pool, config.statementTimeoutMs);
    // the hard tier's heavy shapes as a model writes them, each run as an answer runs (JIT off, the app's timeout)
    console.log(`heavy shapes (fixtures/benchmarks/heavy-shapes.sql), statement timeout ${config.statementTimeoutMs / 1000} s:`);
    for (const q of readNamedQueries(fixturePath('benchmarks', 'heavy-shapes.sql'))) {
      t = performance.now();
      const outcome = await runSql(db.pool, q.sql, config.statementTimeoutMs).then(
        () => 'ok',
        (e: Error) => e.message,
      );
      console.log(`  ${q.name}: ${((performance.now() - t) / 1000).toFixed(2)} s${outcome === 'ok' ? '' : ` (${outcome})`}`);
    }
  } finally {
    await db.close();
  }
  await planBench(config, logger, db.url, opts.concurrent);
}
