// `datadesk ask --json` says where the answer's time went: wall and CPU per
// stage (core/answer-cost.ts), summed from the same trace it prints, the chart
// drawn for it included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

let db: TestDatabase;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 2_000);
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

describe('datadesk ask --json cost', () => {
  it("breaks the answer's time into stages that add up to its trace and its chart", async () => {
    const env = { DATABASE_URL: db.url, DATADESK_HOME: tmp.dir, DEMO_DATA: 'off', SOCRATA_SCHEDULE: 'off' };
    const out = JSON.parse((await runCli(['ask', '--json', 'How many crimes were reported each year?'], env)).stdout);
    expect(out.status).toBe('answered');
    const { stages, total } = out.cost;
    expect(Object.keys(stages)).toEqual(expect.arrayContaining(['reading', 'compiling', 'sql', 'facts', 'narration', 'chart']));
    for (const s of Object.values(stages) as { wallMs: number; cpuMs: number }[]) {
      expect(s.wallMs).toBeGreaterThanOrEqual(0);
      expect(s.cpuMs).toBeGreaterThanOrEqual(0);
    }
    // every node of the trace carries its CPU, and the stages add up to the trace's nodes plus the chart
    const nodes = out.trace.filter((s: { node: string }) => !s.node.includes('/'));
    expect(nodes.filter((s: { node: string }) => s.node !== 'relevance').every((s: { cpuMs?: number }) => s.cpuMs !== undefined)).toBe(
      true,
    );
    const traced = nodes.reduce((sum: number, s: { ms: number }) => sum + s.ms, 0);
    expect(total.wallMs).toBeCloseTo(traced + stages.chart.wallMs, 0);
    expect(stages.sql.wallMs).toBe(out.trace.find((s: { node: string }) => s.node === 'run').ms);
  }, 60_000);
});
