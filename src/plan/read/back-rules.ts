// Going back in a thread. "undo that", "go back", "scratch that": the plan of
// the answer before the last one, restated. "going back to all burglaries",
// "back to all thefts": the thread's last plan with the words after "back to"
// read as an edit, and the qualifiers that narrowed that subject (a location,
// the arrest and domestic flags, description words) taken away, said so.
import type { QueryPlan } from '../query-plan.js';
import { termsOf } from './assemble.js';
import type { ReadContext } from './context.js';
import { planPhrases, planQuestion } from './describe.js';

const UNDO =
  /^(?:(?:ok|okay|oops|actually|no|hmm|sorry)[,!.]? +)?(?:please +)?(?:undo(?: (?:that|it|this|the last (?:one|change|step|edit)))?|go back(?: one step| a step)?|go back to (?:the )?(?:previous|last) (?:one|answer|question)|scratch that|take that back|revert(?: that| it)?|never ?mind(?: that)?)(?: please)?[.!?]*$/i;
const BACK_TO = /^(?:(?:ok|okay|and|now|so)[,]? +)?(?:going back|go back|get back|getting back|back) to (?=(?:all|every) )/i;

/** The filters that narrow a subject ("burglaries at residences with an arrest"), taken away by "back to all burglaries". */
const QUALIFIERS = ['locations', 'arrest', 'domestic', 'descriptions'] as const;

interface Answered {
  ok: true;
  plan: QueryPlan;
  understood: string[];
  terms: string[];
  edit: true;
  edits: string[];
  notes: string[];
}
interface Refused {
  ok: false;
  understood: string[];
  unplaced: string[];
  suggestion: string;
  edit: true;
  edits: string[];
}

/**
 * "undo that": the answer before the last. `before` is that answer's plan (null: it had none; undefined: the
 * thread has one answer or none). Undefined when the text is no undo.
 */
export function readUndo(
  text: string,
  last: QueryPlan | null | undefined,
  before: QueryPlan | null | undefined,
  ctx: ReadContext,
): Answered | Refused | undefined {
  const said = text.trim();
  if (last === undefined || !UNDO.test(said)) return undefined;
  const edits = [said];
  if (!before)
    return {
      ok: false,
      understood: [],
      unplaced: [],
      suggestion:
        before === null
          ? 'The answer before was not a plan I can restate: ask it again in full'
          : 'There is no earlier answer in this thread to go back to',
      edit: true,
      edits,
    };
  return {
    ok: true,
    plan: before,
    understood: planPhrases(before, ctx),
    terms: termsOf(before),
    edit: true,
    edits,
    notes: [`undone: back to the answer before the last, ${planQuestion(before, ctx).replace(/\?$/, '')}`],
  };
}

/** "going back to all burglaries": the words from "all" on, and the last plan without the subject's qualifiers. */
export function readBackTo(
  text: string,
  last: QueryPlan | null | undefined,
): { rest: string; last: QueryPlan; notes: string[] } | undefined {
  const m = BACK_TO.exec(text.trim());
  if (!m || !last) return undefined;
  const plan: QueryPlan = structuredClone(last);
  const dropped = QUALIFIERS.filter((k) => plan.filters[k] !== undefined);
  for (const k of dropped) delete plan.filters[k];
  const notes = dropped.length
    ? [
        `back to all of them: without the ${dropped.map((k) => (k === 'locations' ? 'location' : k === 'descriptions' ? 'description' : k)).join(', ')} filter${dropped.length > 1 ? 's' : ''}`,
      ]
    : [];
  return { rest: text.trim().slice(m[0].length), last: plan, notes };
}
