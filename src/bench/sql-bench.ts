// npm run bench -- sql: the relevance gate's latency over the benchmark
// questions, and the non-LLM time of each benchmark question on the crimes of
// the benchmark database (8.5M rows after `bench -- ingest`): schema
// introspection, validation (guard + EXPLAIN), the run, the narration.
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
    const per: { id: string; tier: string; validate: number; run: number; narrate: number }[] = [];
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
      per.push({ id: i.id, tier: i.tier, validate, run, narrate: performance.now() - t });
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
