// The number check of a model's narration on results of 100 to 10,000 rows:
// median time per check (it was quadratic: about 6 s at 1,000 rows).
import { uncheckedNumbers } from '../agents/sql/narrator.js';
import type { QueryResult } from '../core/result-shape.js';
import { median } from './stats.js';

export function narrationBench(): void {
  const narration = 'The busiest block, 037XX W CERMAK RD, had 106 incidents on 2001-08-19; 12.5% of all, and 4,321 more than expected.';
  for (const size of [100, 1_000, 10_000]) {
    const rows = Array.from({ length: size }, (_, i) => [
      `${String(i).padStart(5, '0')}XX W CERMAK RD`,
      `2001-08-${String(1 + (i % 28)).padStart(2, '0')}`,
      10 + (i % 97),
      (i % 13) / 100,
    ]);
    const result: QueryResult = { columns: ['block', 'day', 'incidents', 'share'], rows, rowCount: size, truncated: false };
    const times: number[] = [];
    let caught: number[] = [];
    for (let k = 0; k < 9; k++) {
      const started = performance.now();
      caught = uncheckedNumbers(narration, result, 'which blocks had the most crimes');
      times.push(performance.now() - started);
    }
    process.stdout.write(
      `number check, ${size.toLocaleString('en-US')} rows x 4 columns: median ${median(times).toFixed(1)} ms; caught ${JSON.stringify(caught)}\n`,
    );
  }
}
