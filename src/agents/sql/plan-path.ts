// The plan path of the generate node: the question (or a fragment that edits
// the thread's last plan: readInThread, the one follow-up rule) is read into a
// QueryPlan with no model; the glossary
// terms it uses are settled from the thread, the workspace defaults or a
// clarifying question; the one compiler writes the SQL. A term is asked about
// only after the rest of the question was read, so a choice always leads to an
// answer.
import { makeAnswer } from '../../core/answer.js';
import { applyChoice, askAbout, chosenOption, glossaryTerm } from './glossary-choices.js';
import { missingBlocks, missingBlocksSentence } from '../../plan/block-check.js';
import { compilePlan, PlanCompileError } from '../../plan/compile.js';
import { measureSync } from '../../core/answer-cost.js';
import { understoodAs, type NarrationContext } from '../../plan/narrate.js';
import { parsePlan, QueryPlan } from '../../plan/query-plan.js';
import { readInThread } from '../../plan/reader.js';
import { resolvedQuestion } from '../../plan/read/describe.js';
import { checkPlan } from './plan-check.js';
import type { SqlState } from './state.js';
import type { PlanContext, PlanOutcome } from './plan-types.js';

export const narrationContext = (ctx: PlanContext, choices: Record<string, string>): NarrationContext => ({
  areaNames: ctx.areaNames,
  dataFrom: ctx.earliestDate,
  dataTo: ctx.latestDate,
  choices,
});

/** Reads, settles the glossary terms, compiles; sets state.plan, state.understood and the assumptions. */
export async function planFromWords(state: SqlState, ctx: PlanContext): Promise<PlanOutcome> {
  if (state.givenPlan) {
    // a button's plan came back from a client: parsed and checked like a model's, never trusted as is
    const given = QueryPlan.safeParse(state.givenPlan);
    const checked = given.success ? checkPlan(given.data, state.schema) : undefined;
    if (!checked?.ok)
      return { kind: 'unread', understood: [], unplaced: [state.question], suggestion: 'Ask the follow-up in words in the thread' };
    return adoptPlan(state, checked.plan, planTerms(checked.plan), ctx);
  }
  const history = state.thread.history;
  const reading = readInThread(state.question, lastAnswerPlan(history), ctx, lastAnswerPlan(history.slice(0, -1)));
  state.fragment = reading.edit;
  if (!reading.ok)
    return {
      kind: 'unread',
      understood: reading.understood,
      unplaced: reading.unplaced,
      suggestion: reading.suggestion,
      reason: reading.reason,
    };
  const plan = parsePlan(reading.plan);
  const model = Boolean(state.deps.llm && !state.llmUnavailable);
  if (plan.measure.kind === 'share' && (plan.top || plan.order === 'measure' || plan.order === 'measure_asc') && (model || !reading.edit)) {
    // the plan cannot say a minimum group size, and the highest rate is often a group of a few incidents: with a
    // model, the model writes the ranking (it can keep groups large enough to compare, and says so). Offline, a
    // ranking asked as an edit of an answer the person has seen (each group's incidents were in its table) is
    // answered as said, with the incidents beside each rate; a question on its own is not (crime-100's gold ranks
    // among groups of 50 or 100 incidents, a size the words do not give)
    return {
      kind: 'unread',
      understood: reading.understood,
      unplaced: ['a ranking by rate (it needs a minimum number of incidents per group)'],
      suggestion: 'Ask for the rate in each group, e.g. "arrest rate of thefts by district in 2019", and read the table',
    };
  }
  // what the edit did beyond its words (a widened filter, a step from the thread's period) is said in the notes
  for (const note of reading.notes ?? []) if (!state.assumptions.includes(note)) state.assumptions.push(note);
  return adoptPlan(state, plan, reading.terms, ctx);
}

/** The thread's last answer as readInThread takes it: its plan, null when it had none (free SQL), undefined when there is none. */
export function lastAnswerPlan(history: readonly { plan?: unknown }[]): QueryPlan | null | undefined {
  const last = history.at(-1);
  return last ? (last.plan ? parsePlan(last.plan) : null) : undefined;
}

/** The glossary terms a plan rests on (for a plan the model filled: the reader lists its own). */
export function planTerms(plan: QueryPlan): string[] {
  const f = plan.filters;
  return [
    ...(f.category === 'violent' ? ['violent_crime'] : []),
    ...(f.weekend ? ['weekend'] : []),
    ...(f.night ? ['night'] : []),
    ...(plan.measure.kind === 'average_per' && plan.measure.per === 'block' ? ['per_block_average'] : []),
  ];
}

/** Settles the plan's glossary terms (or asks), then compiles it; sets state.plan, state.understood, the assumptions. */
export async function adoptPlan(state: SqlState, read: QueryPlan, terms: string[], ctx: PlanContext): Promise<PlanOutcome> {
  // a block the data does not have is said as such, with the nearest it has, never "No crimes are recorded" (issue 33)
  const missing = read.filters.blocks ? await missingBlocks(state.deps.pool, read.filters.blocks) : [];
  if (missing.length) {
    const nearest = missing[0].nearest[0];
    state.answer = makeAnswer({
      kind: 'refusal',
      route: 'sql',
      trace: state.trace,
      reason: missingBlocksSentence(missing),
      alternatives: [
        nearest ? `Ask again with the block as the data writes it, e.g. ${nearest}` : 'Ask again with the block as the data writes it',
      ],
    });
    return { kind: 'told' };
  }
  for (const termId of terms) {
    const chosen = chosenOption(state, termId);
    if (!chosen) {
      await askAbout(state, glossaryTerm(termId));
      return { kind: 'asked' };
    }
    applyChoice(state, termId, chosen);
  }
  const plan =
    state.choices.calendar_day === 'day_of_year'
      ? { ...read, groupBy: read.groupBy.map((d) => (d === 'date' ? ('day_of_year' as const) : d)) }
      : read;
  let compiled;
  try {
    compiled = measureSync('compiling', () => compilePlan(plan, state.choices));
  } catch (error) {
    // a reading the compiler cannot answer (a follow-up that compares a grouped count, ...): said as such, never an internal error
    if (!(error instanceof PlanCompileError)) throw error;
    return {
      kind: 'unread',
      understood: understoodAs(plan, narrationContext(ctx, state.choices)),
      unplaced: [`the combination (${error.message})`],
      suggestion: plan.compareWith
        ? 'Compare totals of two periods, e.g. "How many thefts were reported in 2019 compared with 2018?"'
        : 'Ask it in one question, without the last change',
    };
  }
  state.plan = plan;
  state.resolvedQuestion = resolvedQuestion(plan, ctx);
  state.understood = understoodAs(plan, narrationContext(ctx, state.choices));
  // the glossary's definitions are in the footer already (applyChoice); the compiler's own notes are added
  const glossaryLabels = terms.map((t) => `${glossaryTerm(t).label}:`);
  for (const a of compiled.assumptions)
    if (!glossaryLabels.some((l) => a.startsWith(l)) && !state.assumptions.includes(a)) state.assumptions.push(a);
  return { kind: 'compiled', plan, sql: compiled.sql };
}

/** The refusal when neither the reader nor a model can answer: what was understood, what was not, a rephrasing. */
export function unreadRefusal(state: SqlState, unread: Extract<PlanOutcome, { kind: 'unread' }>, why: string) {
  const understood = unread.understood.length ? `I read this as: ${unread.understood.join(', ')}` : 'I could not read this question';
  const unplaced = unread.unplaced.length ? `; I could not use: ${unread.unplaced.map((w) => `"${w}"`).join(', ')}` : '';
  return makeAnswer({
    kind: 'refusal',
    route: 'sql',
    trace: state.trace,
    reason: unread.reason ? `${understood}. ${unread.reason}` : `${understood}${unplaced}. ${why}`,
    alternatives: [unread.suggestion, 'Configure an LLM (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL) for free-form questions'].filter(Boolean),
  });
}
