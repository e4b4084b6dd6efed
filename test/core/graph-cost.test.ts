// Where an answer's time goes: the graph runner times every node (wall and CPU)
// into the trace, a node's measured parts count under their own stage, and
// answerCost sums a trace into the stages a person reads in --json and the bench.
import { describe, expect, it } from 'vitest';
import { runGraph, type GraphState } from '../../src/core/graph.js';
import { answerCost, measure, measureSync } from '../../src/core/answer-cost.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Keeps this thread busy for about `ms`. */
function spin(ms: number): number {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) x += Math.sqrt(x + 1);
  return x;
}

describe('the cost of an answer', () => {
  it("times each node's wall and CPU, and counts a node's measured parts under their stage, not the node's", async () => {
    const state: GraphState = { trace: [] };
    await runGraph<GraphState, 'run' | 'synthesize'>(
      {
        run: async () => {
          await sleep(40); // waiting for the database: wall, hardly any CPU
          return 'synthesize';
        },
        synthesize: async () => {
          spin(30);
          measureSync('compiling', () => spin(20)); // follow-up labels
          await measure('narration', async () => {
            spin(20);
            await sleep(20);
          });
          return 'end';
        },
      },
      'run',
      state,
    );
    expect(state.trace.map((s) => s.node)).toEqual(['run', 'synthesize/compiling', 'synthesize/narration', 'synthesize']);
    const run = state.trace[0];
    expect(run.ms).toBeGreaterThanOrEqual(39);
    expect(run.cpuMs).toBeLessThan(run.ms / 2);

    const { stages, total } = answerCost(state.trace, { queue: { wallMs: 12, cpuMs: 0 } });
    expect(Object.keys(stages)).toEqual(['compiling', 'sql', 'facts', 'narration', 'queue']);
    expect(stages.sql!.wallMs).toBe(run.ms);
    expect(stages.compiling!.wallMs).toBeGreaterThanOrEqual(19);
    expect(stages.compiling!.cpuMs).toBeGreaterThan(0);
    expect(stages.narration!.wallMs).toBeGreaterThanOrEqual(39);
    // the node's own work, its parts taken out: about 30 ms, not 90 (said against the node's own time, not the
    // clock's: on a busy machine the 30 ms of sleep alone can take 60)
    const synthesize = state.trace[3];
    expect(stages.facts!.wallMs).toBeGreaterThanOrEqual(29);
    expect(stages.facts!.wallMs).toBeLessThan(synthesize.ms - stages.compiling!.wallMs - stages.narration!.wallMs + 1);
    expect(stages.facts!.wallMs + stages.compiling!.wallMs + stages.narration!.wallMs).toBeCloseTo(synthesize.ms, 1);
    expect(total.wallMs).toBeCloseTo(run.ms + synthesize.ms + 12, 1);
  });

  it('records nothing for work measured outside a graph node', async () => {
    expect(await measure('sql', async () => 7)).toBe(7);
    expect(answerCost([])).toEqual({ stages: {}, total: { wallMs: 0, cpuMs: 0 } });
  });

  it('counts a node it has no stage for as other, and a node run twice (a retried validation) twice', () => {
    const cost = answerCost([
      { node: 'validate', ms: 2, cpuMs: 1 },
      { node: 'validate', ms: 3, cpuMs: 2 },
      { node: 'mystery', ms: 5 },
    ]);
    expect(cost.stages).toEqual({ compiling: { wallMs: 5, cpuMs: 3 }, other: { wallMs: 5, cpuMs: 0 } });
  });
});
