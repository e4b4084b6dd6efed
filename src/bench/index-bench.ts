// npm run bench -- indexes: each query of fixtures/benchmarks/index-queries.sql
// on the benchmark database (run `bench -- ingest` first), median of 3 runs with
// the indexes and with index scans turned off in the planner (the "before").
import { median } from './stats.js';
import { readFileSync } from 'node:fs';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { UserError } from '../core/errors.js';
import { fixturePath } from '../core/paths.js';
import { openBenchDatabase } from './bench-database.js';

export function readNamedQueries(file: string): { name: string; sql: string }[] {
  return readFileSync(file, 'utf8')
    .split(/^-- name: /m)
    .slice(1)
    .map((block) => {
      const [name, ...rest] = block.split('\n');
      return {
        name: name.trim(),
        sql: rest
          .filter((l) => !l.startsWith('--'))
          .join('\n')
          .trim(),
      };
    });
}

export async function indexBench(config: Config, logger: Logger): Promise<void> {
  const db = await openBenchDatabase(config, logger, false);
  const client = await db.pool.connect();
  try {
    const { rows } = await client.query('SELECT count(*) AS n FROM crimes');
    if (rows[0].n === 0) throw new UserError('The benchmark database is empty: run `npm run bench -- ingest` first.');
    console.log(`crimes: ${rows[0].n.toLocaleString('en-US')} rows`);
    console.log('query | without indexes (ms) | with indexes (ms) | speed-up');
    for (const q of readNamedQueries(fixturePath('benchmarks', 'index-queries.sql'))) {
      const time = async (indexes: boolean) => {
        const runs: number[] = [];
        await client.query(`SET enable_indexscan = ${indexes}; SET enable_bitmapscan = ${indexes}; SET enable_indexonlyscan = ${indexes}`);
        for (let i = 0; i < 3; i++) {
          const t = performance.now();
          await client.query(q.sql);
          runs.push(performance.now() - t);
        }
        return median(runs);
      };
      const without = await time(false);
      const withIdx = await time(true);
      console.log(`${q.name} | ${without.toFixed(1)} | ${withIdx.toFixed(1)} | ${(without / withIdx).toFixed(1)}x`);
    }
  } finally {
    client.release();
    await db.close();
  }
}
