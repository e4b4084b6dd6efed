// The one channel-neutral reply every agent returns and every channel renders
// (Block Kit, Adaptive Card, terminal, web). Validated with zod at the boundary
// so a renderer can trust its shape.
import { z } from 'zod';

const cellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A cell as cellSchema takes it (zod's number is finite: NaN and Infinity fail), checked without zod's per-value work. */
const isCell = (c: unknown) =>
  c === null || typeof c === 'string' || typeof c === 'boolean' || (typeof c === 'number' && Number.isFinite(c));

/**
 * A table's rows, checked in one plain loop: a whole-market backtest's table has 5,000+ rows of ten cells, and
 * zod's union per cell held the event loop 25-150 ms for it. What passes and fails is cellSchema's rule.
 */
const rowsSchema = z.custom<z.infer<typeof cellSchema>[][]>((rows) => {
  if (!Array.isArray(rows)) return false;
  // index loops, not every(): a hole in an array is undefined here, as zod reads it
  for (let r = 0; r < rows.length; r++) {
    const row: unknown = rows[r];
    if (!Array.isArray(row)) return false;
    for (let c = 0; c < row.length; c++) if (!isCell(row[c])) return false;
  }
  return true;
}, 'table rows must be arrays of text, finite numbers, true/false or null');

const tableSchema = z.object({
  columns: z.array(z.string()),
  rows: rowsSchema,
  /** all rows the query produced, even when only the first are kept here */
  rowCount: z.number().int().nonnegative(),
  truncated: z.boolean(),
});

const chartSchema = z.object({
  /** 'heatmap': a grid whose columns are `labels` and whose rows are the series (a parameter sweep's two axes) */
  kind: z.enum(['line', 'bar', 'grouped-bar', 'heatmap']),
  title: z.string(),
  labels: z.array(z.string()),
  series: z.array(
    z.object({
      name: z.string(),
      values: z.array(z.number().nullable()),
      /** a second y axis on the right, e.g. drawdown under an equity curve */
      axis: z.enum(['left', 'right']).default('left'),
      /** draw as a filled area */
      fill: z.boolean().default(false),
    }),
  ),
  yLabel: z.string().optional(),
  y2Label: z.string().optional(),
  /** the x axis's title (a heat map's column axis) */
  xLabel: z.string().optional(),
  /** a heat map: which values are better (drawn brighter), and the unit written after each cell's value */
  best: z.enum(['high', 'low']).optional(),
  valueSuffix: z.string().optional(),
});

const traceStepSchema = z.object({
  node: z.string(),
  ms: z.number().nonnegative(),
  /** the process's CPU time during the step (core/answer-cost.ts: all of it, other answers' too when several run) */
  cpuMs: z.number().nonnegative().optional(),
  note: z.string().optional(),
  tokens: z.number().int().nonnegative().optional(),
});

/**
 * Where an answer's numbers come from, for the next person to check: the question as resolved, the plan in words,
 * the SQL that ran, the tables it read (a rollup, or crimes), how fresh the data was and how many rows came back.
 */
const sourcesSchema = z.object({
  question: z.string().optional(),
  understood: z.array(z.string()).optional(),
  sql: z.string(),
  /** the relations the SQL reads (its FROM): a rollup such as crimes_by_month, or crimes */
  tables: z.array(z.string()),
  /** the data's last day when the query ran ("crimes through 2025-09-30") */
  freshness: z.string().optional(),
  /** the rows the query returned, all of them (not only those kept) */
  rowsReturned: z.number().int().nonnegative(),
  /** the day the query ran, YYYY-MM-DD (UTC) */
  ranOn: z.string(),
});

const base = {
  route: z.enum(['sql', 'backtest', 'help', 'reject']),
  trace: z.array(traceStepSchema),
};

const answerSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('result'),
    ...base,
    headline: z.string(),
    narration: z.string(),
    /** the SQL that produced the data, in the order it ran */
    sql: z.array(z.string()),
    table: tableSchema.optional(),
    /** more tables (e.g. a backtest's trades) under the main one */
    extraTables: z.array(z.object({ title: z.string(), table: tableSchema })).default([]),
    chart: chartSchema.optional(),
    /** choices the answer rests on ("night = 22:00-06:00", "sizing: whole lots") */
    assumptions: z.array(z.string()),
    notes: z.array(z.string()),
    /** "data through 2025-09-30" */
    freshness: z.string().optional(),
    /** the query plan in words ("thefts", "in 2019", "all of Chicago"): what the answer counted */
    understood: z.array(z.string()).optional(),
    /** set when the question was answered with a verified question/SQL pair: says who vouched for it */
    verified: z.string().optional(),
    /**
     * follow-ups to offer as buttons ("by month", "only arrests"): each carries the plan it asks, the edit of
     * this answer's plan, so a click answers that plan whatever was asked in the thread since
     */
    followUps: z.array(z.object({ label: z.string(), plan: z.record(z.string(), z.unknown()) })).optional(),
    /**
     * what the answer answered, resolved: the question in full words ("How many thefts were reported in 2019
     * compared with 2018?", never the fragment "compare with 2018"), and for a plan answer the plan and its key.
     * Memory, feedback, verified pairs, exports and digests keep this.
     */
    resolved: z
      .object({
        question: z.string(),
        plan: z.record(z.string(), z.unknown()).optional(),
        planKey: z.string().optional(),
        /** the model's query as written over crimes, when a rollup answered it instead: what a verified pair keeps */
        sql: z.string().optional(),
      })
      .optional(),
    /** where the numbers come from (every SQL answer): see sourcesSchema */
    sources: sourcesSchema.optional(),
  }),
  z.object({
    kind: z.literal('clarify'),
    ...base,
    question: z.string(),
    term: z.string(),
    /** the term in words ("average per block"), for what a person sees; term is the id */
    termLabel: z.string().optional(),
    options: z.array(z.object({ id: z.string(), label: z.string(), description: z.string().optional() })).min(2),
  }),
  z.object({
    kind: z.literal('refusal'),
    ...base,
    reason: z.string(),
    /** what the bot can do instead */
    alternatives: z.array(z.string()),
  }),
  z.object({
    kind: z.literal('error'),
    ...base,
    message: z.string(),
    /** whether asking again later may work (a timeout, the LLM down) */
    retryable: z.boolean(),
  }),
]);

export type Answer = z.infer<typeof answerSchema>;
export type AnswerInput = z.input<typeof answerSchema>;
export type AnswerTable = z.infer<typeof tableSchema>;
export type ChartSpec = z.infer<typeof chartSchema>;
export type TraceStep = z.infer<typeof traceStepSchema>;
export type Cell = z.infer<typeof cellSchema>;
export type AnswerSources = z.infer<typeof sourcesSchema>;

/** An answer's sources in short lines, for any channel: what was asked, how it was read, what ran on what, how much came back. */
export function sourceLines(s: AnswerSources): { label: string; text: string }[] {
  const n = s.rowsReturned;
  return [
    ...(s.question ? [{ label: 'Question', text: s.question }] : []),
    ...(s.understood?.length ? [{ label: 'Understood as', text: s.understood.join(' · ') }] : []),
    { label: 'Ran on', text: `${s.tables.join(', ') || 'no table'} (${s.ranOn})` },
    { label: 'Returned', text: `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}${s.freshness ? `; data: ${s.freshness}` : ''}` },
  ];
}

/** Validates an agent's answer; a malformed one is a bug, reported as such. */
export function makeAnswer(input: AnswerInput): Answer {
  return answerSchema.parse(input);
}

/** Runs `work` and appends its timing to the trace. */
export async function timed<T>(trace: TraceStep[], node: string, work: () => Promise<T> | T, note?: string): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    trace.push({ node, ms: Math.round((performance.now() - started) * 100) / 100, ...(note ? { note } : {}) });
  }
}

/**
 * The narration as it reads under the headline: without the headline it repeats, and without the
 * punctuation that joined them (". That is 19.3% fewer ..." reads "That is 19.3% fewer ...").
 */
export function narrationAfterHeadline(answer: { headline: string; narration: string }): string {
  if (!answer.narration.startsWith(answer.headline)) return answer.narration;
  return answer.narration
    .slice(answer.headline.length)
    .replace(/^[\s.,;:]+/, '')
    .trim();
}

/** Tables up to this many rows (24 hours, 12 months, 7 weekdays, 22 districts) are shown whole: an axis is never cut. */
export const WHOLE_TABLE_ROWS = 24;

/** How many rows of a table a channel shows: all of a short table, else `usual` ("showing N of M" says the rest). */
export function rowsShown(t: AnswerTable, usual: number): number {
  return t.rowCount <= WHOLE_TABLE_ROWS && t.rows.length === t.rowCount ? t.rows.length : Math.min(usual, t.rows.length);
}

/** An answer's main words: for a result its headline or narration, else the question asked, the refusal or the error. */
export function answerText(answer: Answer, result: 'headline' | 'narration'): string {
  switch (answer.kind) {
    case 'result':
      return answer[result];
    case 'clarify':
      return answer.question;
    case 'refusal':
      return answer.reason;
    case 'error':
      return answer.message;
  }
}
