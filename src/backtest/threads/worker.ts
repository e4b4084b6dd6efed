// What the worker threads run (see pool.ts). Each export is one kind of task;
// inputs and outputs are structured-cloned, and the bars of a whole-market scan
// arrive as views of SharedArrayBuffers, so no thread copies them.
import { UserError } from '../../core/errors.js';
import type { ChartSpec } from '../../core/answer.js';
import type { ChartSize } from '../../charts/render-png.js';
import type { ChartStyle } from '../../charts/chartjs-config.js';
import type { Bars } from '../expr/compile.js';
import type { Field } from '../expr/parser.js';
import { computeKpis, KPI_NAMES } from '../kpis.js';
import { simulateCandidate, type EngineBars } from '../run-spec.js';
import type { SimulationResult } from '../simulator.js';
import type { StrategySpec } from '../spec.js';
import { dayText } from '../days.js';
import { compareWinner, type ComparisonInput, type Comparisons } from '../comparisons.js';

/** A cached exchange table as a worker reads it: views of the shared memory. */
export interface SharedTableRef {
  days: Int32Array;
  columns: Partial<Record<Field, Float64Array>>;
}

export interface InlineTicker {
  bars: Bars;
  length: number;
  dates?: string[];
  /** with an execution model that has costs: the ticker (its board, its price limits; the ST rule reads `name`, the short name) */
  code?: string;
  name?: string;
}

/** Job rows: source (ticker or table index), from, to (rows of a table), strategy index. */
export const JOB_STRIDE = 4;
/** Sweep values a job: a grid has two axes. */
export const SWEEP_STRIDE = 2;

export interface EvaluateInput {
  spec: StrategySpec;
  /** whole-market source: the tables the jobs' rows point into */
  tables?: SharedTableRef[];
  /** small source: the tickers' bars, cloned (their dates only for full runs) */
  tickers?: InlineTicker[];
  jobs: Int32Array;
  /** the sweep values of each job, SWEEP_STRIDE a job, NaN for none */
  params: Float64Array;
  /** also return each job's simulation (equity and trades) */
  full: boolean;
  /** whole-market source with costs: each job's ticker (its board and price limits) */
  tickerOfJob?: { code: string; name: string }[];
}

export interface EvaluateOutput {
  /** KPI_NAMES.length values per job, NaN where the KPI is null (a KPI is never NaN) */
  kpis: Float64Array;
  /** round trips of each job */
  trades: Int32Array;
  simulations?: SimulationResult[];
}

// The KPIs never read a trade's dates: without full runs, the engine gets
// blank labels of the right length instead of making 1,400 strings a ticker.
const blanks = new Map<number, string[]>();
function blankDates(n: number): string[] {
  let b = blanks.get(n);
  if (!b) {
    b = new Array<string>(n).fill('');
    if (blanks.size > 64) blanks.clear();
    blanks.set(n, b);
  }
  return b;
}

function barsOf(input: EvaluateInput, job: number): EngineBars {
  const j = job * JOB_STRIDE;
  const source = input.jobs[j];
  if (!input.tables) {
    const t = input.tickers![source];
    return { bars: t.bars, dates: t.dates ?? blankDates(t.length), code: t.code, name: t.name };
  }
  const table = input.tables[source];
  const from = input.jobs[j + 1];
  const to = input.jobs[j + 2];
  const bars = {} as Bars;
  for (const [f, col] of Object.entries(table.columns) as [Field, Float64Array][]) bars[f] = col.subarray(from, to);
  const dates = input.full ? Array.from(table.days.subarray(from, to), dayText) : blankDates(to - from);
  // an execution model with costs reads the days (the rates in force) and the ticker (its price limits)
  const ticker = input.tickerOfJob?.[job];
  return ticker ? { bars, dates, days: table.days.subarray(from, to), code: ticker.code, name: ticker.name } : { bars, dates };
}

/** The candidates' runs and KPIs, exactly as runSpec computes them on the main thread. */
export function evaluate(input: EvaluateInput): EvaluateOutput | { userError: string } {
  try {
    const count = input.jobs.length / JOB_STRIDE;
    const kpis = new Float64Array(count * KPI_NAMES.length);
    const trades = new Int32Array(count);
    const simulations: SimulationResult[] = [];
    for (let job = 0; job < count; job++) {
      const values = Array.from(input.params.subarray(job * SWEEP_STRIDE, (job + 1) * SWEEP_STRIDE)).filter((v) => !Number.isNaN(v));
      const strategy = input.spec.strategies[input.jobs[job * JOB_STRIDE + 3]];
      const simulation = simulateCandidate(input.spec, barsOf(input, job), strategy, values.length ? values : undefined);
      const k = computeKpis(simulation);
      KPI_NAMES.forEach((name, i) => (kpis[job * KPI_NAMES.length + i] = k[name] ?? NaN));
      trades[job] = simulation.trades.length;
      if (input.full) simulations.push(simulation);
    }
    return { kpis, trades, ...(input.full ? { simulations } : {}) };
  } catch (error) {
    if (error instanceof UserError) return { userError: error.message };
    throw error;
  }
}

/** A chart as PNG bytes (Chart.js on @napi-rs/canvas, loaded on the first chart). */
export async function renderPng(input: { spec: ChartSpec; size: ChartSize; style?: ChartStyle }): Promise<Uint8Array> {
  const { renderChartPng } = await import('../../charts/render-png.js');
  return renderChartPng(input.spec, input.size, input.style);
}

/** What an answer sets beside its winner (comparisons.ts). */
export function compare(input: ComparisonInput): Comparisons | { userError: string } {
  try {
    return compareWinner(input);
  } catch (error) {
    if (error instanceof UserError) return { userError: error.message };
    throw error;
  }
}

const TASKS = { evaluate, renderPng, compare };
export type TaskName = keyof typeof TASKS;
export type TaskInput<N extends TaskName> = Parameters<(typeof TASKS)[N]>[0];
export type TaskOutput<N extends TaskName> = Exclude<Awaited<ReturnType<(typeof TASKS)[N]>>, { userError: string }>;
