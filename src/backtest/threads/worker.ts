// What the worker threads run (see pool.ts). Each export is one kind of task;
// inputs and outputs are structured-cloned, and the bars of a whole-market scan
// arrive as views of SharedArrayBuffers, so no thread copies them.
//
// The engine (tasks.ts: the rule library, the fee tables, their schemas) loads
// on a thread's first backtest task and the chart renderer on its first chart,
// so a thread started for a chart alone does not load the engine: about a
// second of a cold process's first chart on a busy machine. Those loads are
// counted (loading.ts): a thread must not be terminated in the middle of one.
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { UserError } from '../../core/errors.js';
import { countedLoad, THREAD_LOADED } from './loading.js';
import type { ChartSpec } from '../../core/answer.js';
import type { ChartSize } from '../../charts/render-png.js';
import type { ChartStyle } from '../../charts/chartjs-config.js';
import type { ComparisonInput, Comparisons } from '../comparisons.js';
import type { EvaluateInput, EvaluateOutput, PortfolioInput, PortfolioOutput } from './tasks.js';

/** A user error's message, which crosses the thread boundary (pool.ts throws it again as a UserError). */
interface WorkerUserError {
  userError: string;
}

/** The pool's shared loading state (pool.ts passes it to every thread). */
const loading = (workerData as { loading: Int32Array }).loading;

async function engineTask<I, O>(run: (tasks: typeof import('./tasks.js')) => (input: I) => O, input: I): Promise<O | WorkerUserError> {
  const tasks = await countedLoad(loading, () => import('./tasks.js'));
  try {
    return run(tasks)(input);
  } catch (error) {
    if (error instanceof UserError) return { userError: error.message };
    throw error;
  }
}

/** The candidates' runs and KPIs, exactly as runSpec computes them on the main thread. */
export function evaluate(input: EvaluateInput): Promise<EvaluateOutput | WorkerUserError> {
  return engineTask((t) => t.evaluateJobs, input);
}

/** What an answer sets beside its winner (comparisons.ts). */
export function compare(input: ComparisonInput): Promise<Comparisons | WorkerUserError> {
  return engineTask((t) => t.compareJobs, input);
}

/** A portfolio's run, its KPIs and the market beside it (run-portfolio.ts). */
export function portfolio(input: PortfolioInput): Promise<PortfolioOutput | WorkerUserError> {
  return engineTask((t) => t.portfolioJob, input);
}

/** A chart as PNG bytes (Chart.js on @napi-rs/canvas, loaded on the first chart). */
export async function renderPng(input: { spec: ChartSpec; size: ChartSize; style?: ChartStyle }): Promise<Uint8Array> {
  const { renderChartPng } = await countedLoad(loading, () => import('../../charts/render-png.js'));
  return renderChartPng(input.spec, input.size, input.style);
}

const TASKS = { evaluate, renderPng, compare, portfolio };
export type TaskName = keyof typeof TASKS;
export type TaskInput<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];
export type TaskOutput<N extends TaskName> = Exclude<Awaited<ReturnType<(typeof TASKS)[N]>>, WorkerUserError>;

// this thread's modules are loaded: from now on it may be terminated between loads (pool.ts)
parentPort?.postMessage({ [THREAD_LOADED]: threadId });
