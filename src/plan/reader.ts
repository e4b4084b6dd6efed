// The offline reader: words -> QueryPlan, as a small grammar over the
// semantic model's vocabulary, no LLM (../shared/design/QUERY_PLAN.md).
// Precision before coverage: it answers only when every content word lands in
// the plan; otherwise it says which words it understood, which it could not
// place, and a question it could read instead.
//
//   scan      words -> pieces (rules for dates, hours, numbered places; the vocabulary)
//   assemble  pieces -> a plan for a question on its own
//   editPlan  pieces -> an edit of the thread's last plan (a follow-up)
import type { QueryPlan, QueryPlanInput } from './query-plan.js';
import { assemble } from './read/assemble.js';
import type { ReadContext } from './read/context.js';
import { planPhrases, planQuestion } from './read/describe.js';
import { editPlan, standsAlone } from './read/follow-up.js';
import { isSubject } from './read/pieces.js';
import { scan } from './read/scan.js';
import { Work } from './read/work.js';

export type { ReadContext } from './read/context.js';

export type Reading =
  /** terms: the ambiguous glossary terms in play ('night', 'per_block_average', 'calendar_day', 'violent_crime', 'weekend') */
  | { ok: true; plan: QueryPlanInput; understood: string[]; terms: string[] }
  | { ok: false; understood: string[]; unplaced: string[]; suggestion: string };

const FALLBACK = 'Try: how many thefts were reported in Austin in 2019?';
const NOTHING = 'nothing to count';
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function readQuestion(text: string, ctx: ReadContext): Reading {
  const work = new Work(scan(text, ctx));
  const { plan, terms } = assemble(work);
  return conclude(work, plan, terms, ctx);
}

/**
 * A follow-up that edits the last plan ("and in 2021?", "only arrests", "what about burglaries?",
 * "by month instead", "top 10 instead", "compare with 2018", "in englewood?", "at night?");
 * undefined when the text is not a follow-up edit (then it is read as a new question).
 */
export function readFollowUp(text: string, last: QueryPlan, ctx: ReadContext): Reading | undefined {
  const work = new Work(scan(text, ctx));
  if (standsAlone(work)) return undefined;
  const live = work.live();
  const marker = live.some((p) => p.kind === 'followUp');
  const edits = live.filter((p) => p.kind !== 'followUp');
  if (!edits.length && !(marker && work.bad.size)) return undefined;
  // words it cannot place and nothing that says "follow-up": let it be read as a question
  if (work.bad.size && !marker && !edits.some((p) => p.kind !== 'all' && !isSubject(p))) return undefined;
  const { plan, terms } = editPlan(work, last);
  return conclude(work, plan, terms, ctx);
}

function conclude(work: Work, plan: QueryPlan | undefined, terms: string[], ctx: ReadContext): Reading {
  if (plan && work.bad.size === 0 && work.problems.length === 0) {
    return { ok: true, plan, understood: planPhrases(plan, ctx), terms };
  }
  const understood = plan ? planPhrases(plan, ctx) : work.live().filter((p) => p.kind !== 'followUp').map((p) => p.text);
  const unplaced = work.unplacedPhrases();
  const why = work.problems.find((p) => p !== NOTHING);
  const suggestion = `${why ? `${capitalise(why)}. ` : ''}${plan && understood.length ? `Try: ${planQuestion(plan, ctx)}` : FALLBACK}`;
  return { ok: false, understood, unplaced, suggestion };
}
