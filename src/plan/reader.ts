// The offline reader: words -> QueryPlan, as a small grammar over the
// semantic model's vocabulary, no LLM (../shared/design/QUERY_PLAN.md).
// Precision before coverage: it answers only when every content word lands in
// the plan; otherwise it says which words it understood, which it could not
// place, and a question it could read instead.
//
//   scan      words -> pieces (rules for dates, hours, numbered places; the vocabulary)
//   assemble  pieces -> a plan for a question on its own
//   editPlan  pieces -> an edit of the thread's last plan (a fragment: readInThread decides)
import type { QueryPlan, QueryPlanInput } from './query-plan.js';
import { assemble } from './read/assemble.js';
import type { ReadContext } from './read/context.js';
import { planPhrases, planQuestion } from './read/describe.js';
import { editPlan, isFragment } from './read/follow-up.js';
import { scan } from './read/scan.js';
import { Work } from './read/work.js';
import { keepVersus, readVersus } from './read/compare-rules.js';
import { readBackTo, readUndo } from './read/back-rules.js';
import { readExtend } from './read/extend-rules.js';
import { termsOf } from './read/assemble.js';
import { skippedNote } from './read/unknown-words.js';

export type { ReadContext } from './read/context.js';

export type Reading =
  /** terms: the ambiguous glossary terms in play ('night', 'per_block_average', 'calendar_day', 'violent_crime', 'weekend') */
  | { ok: true; plan: QueryPlanInput; understood: string[]; terms: string[] }
  /** reason: why a reading of every word stopped, when it is not a word left unread ("There is no earlier answer…") */
  | { ok: false; understood: string[]; unplaced: string[]; suggestion: string; reason?: string };

const FALLBACK = 'Try: how many thefts were reported in Austin in 2019?';
const NOTHING = 'nothing to count';
const NO_EARLIER_ANSWER = 'There is no earlier answer in this thread to build on';
const ASK_WHOLE = 'Ask the whole question, e.g. "how many thefts were reported in 2019?"';
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function readQuestion(text: string, ctx: ReadContext): Reading {
  const work = new Work(scan(text, ctx));
  const { plan, terms } = assemble(work);
  return conclude(work, plan, terms, ctx);
}

/** How a text was read in its thread: as a question on its own, or as an edit of the thread's last plan. */
export type ThreadReading = Reading & {
  edit: boolean;
  /** for an edit: the words it changes the last plan with ("in 2021", "arrests"); none means nothing was recognised */
  edits: string[];
  /** for an edit: what it did beyond the words ("by year: every year, not only 2012"), for the answer's notes */
  notes?: string[];
};

/**
 * The one follow-up rule. A text that reads as a complete question on its own is a new question and
 * inherits nothing from the thread: no filter, grouping, order or limit. Only a fragment ("and in 2021?",
 * "only arrests", "what about burglaries?", "by month instead", "top 10", "compare with 2018", "in
 * englewood?") edits the thread's last answer, and the edit shows in "understood as". `last` is that
 * answer: its plan, or null when it had none (free SQL: the fragment is then the model's to apply);
 * undefined when the thread has no answer yet, and the text is read on its own.
 */
export function readInThread(text: string, last: QueryPlan | null | undefined, ctx: ReadContext, before?: QueryPlan | null): ThreadReading {
  // "undo that": the answer before the last; "going back to all burglaries": the last without the subject's qualifiers
  const undo = readUndo(text, last, before, ctx);
  if (undo) return undo;
  const extended = readExtend(text, last, ctx);
  if (extended) return extended;
  const back = readBackTo(text, last);
  if (back) {
    const r = readInThread(back.rest, back.last, ctx);
    return { ...r, notes: [...back.notes, ...(r.notes ?? [])] };
  }
  const work = new Work(scan(text, ctx));
  const edits = work
    .live()
    .filter((p) => p.kind !== 'followUp')
    .map((p) => p.text);
  const versus = last ? readVersus(work, last, ctx) : undefined;
  if (versus) {
    const r = conclude(work, versus.plan, termsOf(versus.plan), ctx);
    return {
      ...r,
      understood: [...r.understood, versus.phrase],
      edit: true,
      edits,
      notes: [...(versus.notes ?? []), ...skippedNotes(work)],
    };
  }
  if (last !== undefined && isFragment(work) && edits.length) {
    if (last === null) return { ok: false, understood: edits, unplaced: [], suggestion: 'Ask it as one whole question', edit: true, edits };
    const { plan, terms, notes } = editPlan(work, last, ctx, before);
    if (plan) keepVersus(last, plan, notes);
    return { ...conclude(work, plan, terms, ctx), edit: true, edits, notes: [...(notes ?? []), ...skippedNotes(work)] };
  }
  if (last === undefined && isFragment(work) && work.live().some((p) => p.kind === 'followUp' && p.back)) {
    // "same for 2019" with no answer in the thread yet (the first question was refused): there is nothing to edit,
    // and read on its own it would count every crime of 2019
    return { ok: false, understood: edits, unplaced: [], reason: NO_EARLIER_ANSWER, suggestion: ASK_WHOLE, edit: true, edits };
  }
  const whole = new Work(scan(text, ctx));
  const { plan, terms } = assemble(whole);
  return { ...conclude(whole, plan, terms, ctx), edit: false, edits: [], ...said(skippedNotes(whole)) };
}

/** The words the reading passed over (read/unknown-words.ts): an answer says them in its notes, never silently. */
const skippedWords = (work: Work): string[] => work.scan.skipped.map((i) => work.scan.tokens[i].raw);

/** Notes only when there are some: a reading with nothing to say is the same as readQuestion's. */
const said = (notes: string[]) => (notes.length ? { notes } : {});

function skippedNotes(work: Work): string[] {
  const note = skippedNote(skippedWords(work));
  return note ? [note] : [];
}

function conclude(work: Work, plan: QueryPlan | undefined, terms: string[], ctx: ReadContext): Reading {
  if (plan && work.bad.size === 0 && work.problems.length === 0) {
    return { ok: true, plan, understood: planPhrases(plan, ctx), terms };
  }
  const understood = plan
    ? planPhrases(plan, ctx)
    : work
        .live()
        .filter((p) => p.kind !== 'followUp')
        .map((p) => p.text);
  // a refusal names every word not used, the passed-over ones too
  const unplaced = [...new Set([...work.unplacedPhrases(), ...skippedWords(work)])];
  const why = work.problems.find((p) => p !== NOTHING);
  const suggestion = `${why ? `${capitalise(why)}. ` : ''}${plan && understood.length ? `Try: ${planQuestion(plan, ctx)}` : FALLBACK}`;
  return { ok: false, understood, unplaced, suggestion };
}
