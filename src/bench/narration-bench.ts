// The narration of a free-SQL result on results of 100 to 10,000 rows: median
// time to compute its facts (result-facts.ts) and tell the default ones.
import { narrate } from '../agents/sql/narrator.js';
import type { QueryResult } from '../core/result-shape.js';
import { median } from './stats.js';

export function narrationBench(): void {
  for (const size of [100, 1_000, 10_000]) {
    const rows = Array.from({ length: size }, (_, i) => [
      `${String(i).padStart(5, '0')}XX W CERMAK RD`,
      `2001-08-${String(1 + (i % 28)).padStart(2, '0')}`,
      10 + (i % 97),
      (i % 13) / 100,
    ]);
    const result: QueryResult = { columns: ['block', 'day', 'incidents', 'share'], rows, rowCount: size, truncated: false };
    const times: number[] = [];
    let told = '';
    for (let k = 0; k < 9; k++) {
      const started = performance.now();
      told = narrate(result, { ordered: true });
      times.push(performance.now() - started);
    }
    process.stdout.write(`narration, ${size.toLocaleString('en-US')} rows x 4 columns: median ${median(times).toFixed(1)} ms; "${told}"\n`);
  }
}
