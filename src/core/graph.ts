// A small graph runner for agents: each node is an async function of a shared
// state that returns the name of the next node (or 'end'). Every node run is
// timed into the state's trace (wall and the process's CPU), with the note and
// tokens the node left there; parts a node measures (answer-cost.ts) come first.
import type { TraceStep } from './answer.js';
import { cpuMsSince, inNode } from './answer-cost.js';

export interface GraphState {
  trace: TraceStep[];
  /** a node may describe its run ("attempt 2") for its trace step */
  stepNote?: string;
  /** tokens an LLM call of the node used */
  stepTokens?: number;
}

export type GraphNode<S, N extends string> = (state: S) => Promise<N | 'end'>;

export async function runGraph<S extends GraphState, N extends string>(
  nodes: Record<N, GraphNode<S, N>>,
  start: N,
  state: S,
  maxSteps = 25,
): Promise<S> {
  let current: N | 'end' = start;
  for (let step = 0; current !== 'end'; step++) {
    if (step >= maxSteps) throw new Error(`graph: more than ${maxSteps} steps, a loop in the graph?`);
    const name: N = current;
    const started = performance.now();
    const cpu = process.cpuUsage();
    try {
      current = await inNode(state.trace, name, () => nodes[name](state));
    } finally {
      state.trace.push({
        node: name,
        ms: Math.round((performance.now() - started) * 100) / 100,
        cpuMs: cpuMsSince(cpu),
        ...(state.stepNote ? { note: state.stepNote } : {}),
        ...(state.stepTokens ? { tokens: state.stepTokens } : {}),
      });
      state.stepNote = undefined;
      state.stepTokens = undefined;
    }
  }
  return state;
}
