// A fragment the reader could read only in part goes to the model, which
// answers with a whole plan of its own. That plan is what runs and what the
// answer says ("Understood as" is our words for it), but a model that changed a
// slot the person did not speak to (the month read from "and April", the crime
// type kept from the last answer) would answer another question with no word
// of warning; so would one that counted burglaries for "thefts in 2019 with a
// getaway car". What the reader was sure of and the model's plan are both said
// in "Understood as" words, and each part the model changed is said in a note:
// our words for both, never the model's.
import { assemble } from '../../plan/read/assemble.js';
import { editPlan } from '../../plan/read/follow-up.js';
import { scan } from '../../plan/read/scan.js';
import { Work } from '../../plan/read/work.js';
import { understoodAs, type NarrationContext } from '../../plan/narrate.js';
import type { QueryPlan } from '../../plan/query-plan.js';
import type { PlanContext } from './plan-types.js';

/** A phrase of "Understood as" without the words it was said in: "in 2019-04 (April 2019)" -> "in 2019-04". */
const bare = (phrase: string) => phrase.replace(/\s*\([^()]*\)\s*$/, '').trim();

/** The reader's edit of the last plan for the words of a fragment it could place (readInThread's, kept when it fails). */
export const readerEdit = (fragment: string, last: QueryPlan, ctx: PlanContext) => editPlan(new Work(scan(fragment, ctx)), last, ctx).plan;

/** The reader's plan for the words of a question on its own it could place (readQuestion's, kept when it fails). */
export const readerPartial = (question: string, ctx: PlanContext) => assemble(new Work(scan(question, ctx))).plan;

/**
 * What the reader was sure of, as a whole plan: for a fragment, its edit of the last plan (the slots the person
 * did not speak to are the last answer's); for a question on its own, the model's plan with the crime types and
 * the period the person's words named (a slot the words left open is the model's to fill).
 */
function readerPlan(question: string, last: QueryPlan | undefined, modelPlan: QueryPlan, ctx: PlanContext): QueryPlan | undefined {
  if (last) return readerEdit(question, last, ctx);
  const read = readerPartial(question, ctx);
  if (!read) return undefined;
  const { types, category, time } = read.filters;
  return {
    ...modelPlan,
    filters: { ...modelPlan.filters, ...(types || category ? { types, category } : {}), ...(time ? { time } : {}) },
  };
}

/**
 * The note for what the model's plan changed of what the reader read in the person's words, undefined when it
 * kept all of it (or the reader read nothing of it). `last`: the plan a fragment edits; undefined for a question
 * on its own.
 */
export function modelChangeNote(
  question: string,
  last: QueryPlan | undefined,
  modelPlan: QueryPlan,
  ctx: PlanContext,
  n: NarrationContext,
) {
  const expected = readerPlan(question, last, modelPlan, ctx);
  if (!expected) return undefined;
  const read = understoodAs(expected, n);
  const ran = understoodAs(modelPlan, n);
  const kept = new Set(ran.map(bare));
  const changed = read.filter((p) => !kept.has(bare(p)));
  if (!changed.length) return undefined;
  const wasRead = new Set(read.map(bare));
  const instead = ran.filter((p) => !wasRead.has(bare(p)));
  const now = instead.length ? `; the answer counts ${instead.map((p) => `"${bare(p)}"`).join(', ')} instead` : '';
  return `The model's query differs from what I read in your words: I read ${changed.map((p) => `"${bare(p)}"`).join(', ')}${now}. Check that this is the question you meant.`;
}
