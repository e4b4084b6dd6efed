// Where an answer's time goes: wall and CPU per stage (reading the question,
// compiling the plan, the SQL, the facts, the narration, the chart, the
// delivery, the wait in the queue). The graph runner times every node into the
// answer's trace; code inside a node times its parts with measure(), which
// adds a step named "node/stage" whose time is then taken out of the node's
// own. answerCost() sums a trace into the stages.
//
// CPU is process.cpuUsage() around the step: the whole process's CPU, exact
// for one answer at a time; with answers running at once it also counts
// theirs, so under load only the sum over all answers (or wall time) means much.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceStep } from './answer.js';

/** receiving: the receiver's share (the request, queueing the job, waiting for the answer's notice, sending it on) */
export const COST_STAGES = [
  'reading',
  'compiling',
  'sql',
  'facts',
  'narration',
  'chart',
  'engine',
  'queue',
  'delivery',
  'receiving',
  'other',
] as const;
export type CostStage = (typeof COST_STAGES)[number];

/** The stage a graph node's own time counts under (the parts it measured count under theirs). */
const NODE_STAGE: Record<string, CostStage> = {
  // the desk's gate, and the SQL agent's nodes (agents/sql/agent.ts)
  relevance: 'reading',
  schema: 'reading',
  generate: 'reading',
  validate: 'compiling',
  run: 'sql',
  synthesize: 'facts',
  // the backtest agent's
  parse: 'reading',
  retrieve: 'sql',
  simulate: 'engine',
};

export interface StageCost {
  wallMs: number;
  cpuMs: number;
}

export interface AnswerCost {
  /** the stages that took any time, in COST_STAGES order */
  stages: Partial<Record<CostStage, StageCost>>;
  /** the sum over the stages */
  total: StageCost;
}

/** A step's CPU: the process's user and system time since `from` (process.cpuUsage()). */
export const cpuMsSince = (from: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(from);
  return round((d.user + d.system) / 1000);
};

const round = (ms: number) => Math.round(ms * 100) / 100;

interface Scope {
  trace: TraceStep[];
  node: string;
}
const scope = new AsyncLocalStorage<Scope>();

/** Runs a graph node with its trace in scope, so that measure() inside it adds its parts there. */
export const inNode = <T>(trace: TraceStep[], node: string, run: () => Promise<T>): Promise<T> => scope.run({ trace, node }, run);

function record(stage: CostStage, started: number, cpu: NodeJS.CpuUsage): void {
  const s = scope.getStore();
  if (s) s.trace.push({ node: `${s.node}/${stage}`, ms: round(performance.now() - started), cpuMs: cpuMsSince(cpu) });
}

/** Times `work` as a part of the node running it (nothing is recorded outside a graph node). */
export async function measure<T>(stage: CostStage, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    return await work();
  } finally {
    record(stage, started, cpu);
  }
}

/** measure() for synchronous work. */
export function measureSync<T>(stage: CostStage, work: () => T): T {
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    return work();
  } finally {
    record(stage, started, cpu);
  }
}

/**
 * A trace summed into stages. A node's parts ("synthesize/narration") precede the node's own step in the trace
 * (they end first): their time is counted under their stage and taken out of the node's. `outside` adds what
 * happened around the answer (the queue's wait, the delivery, a chart drawn for it).
 */
export function answerCost(trace: readonly TraceStep[], outside: Partial<Record<CostStage, StageCost>> = {}): AnswerCost {
  const sums = new Map<CostStage, StageCost>();
  const add = (stage: CostStage, wallMs: number, cpuMs: number) => {
    const s = sums.get(stage) ?? { wallMs: 0, cpuMs: 0 };
    s.wallMs += wallMs;
    s.cpuMs += cpuMs;
    sums.set(stage, s);
  };
  const parts = new Map<string, StageCost>();
  for (const step of trace) {
    const slash = step.node.indexOf('/');
    if (slash > 0) {
      const stage = step.node.slice(slash + 1) as CostStage;
      add(COST_STAGES.includes(stage) ? stage : 'other', step.ms, step.cpuMs ?? 0);
      const node = step.node.slice(0, slash);
      const p = parts.get(node) ?? { wallMs: 0, cpuMs: 0 };
      p.wallMs += step.ms;
      p.cpuMs += step.cpuMs ?? 0;
      parts.set(node, p);
      continue;
    }
    const p = parts.get(step.node) ?? { wallMs: 0, cpuMs: 0 };
    parts.delete(step.node);
    add(NODE_STAGE[step.node] ?? 'other', Math.max(0, step.ms - p.wallMs), Math.max(0, (step.cpuMs ?? 0) - p.cpuMs));
  }
  for (const [stage, c] of Object.entries(outside) as [CostStage, StageCost][]) add(stage, c.wallMs, c.cpuMs);
  const stages: AnswerCost['stages'] = {};
  const total = { wallMs: 0, cpuMs: 0 };
  for (const stage of COST_STAGES) {
    const s = sums.get(stage);
    if (!s) continue;
    stages[stage] = { wallMs: round(s.wallMs), cpuMs: round(s.cpuMs) };
    total.wallMs += s.wallMs;
    total.cpuMs += s.cpuMs;
  }
  return { stages, total: { wallMs: round(total.wallMs), cpuMs: round(total.cpuMs) } };
}
