// A fragment the reader could read only in part goes to the model, which
// answers with a whole plan of its own. That plan is what runs and what the
// answer says ("Understood as" is our words for it), but a model that changed a
// slot the person did not speak to (the month read from "and April", the crime
// type kept from the last answer) would answer another question with no word
// of warning. The reader's edit of the last plan (what it was sure of) and the
// model's plan are both said in "Understood as" words, and each part the model
// changed is said in a note: our words for both, never the model's.
import { editPlan } from '../../plan/read/follow-up.js';
import { scan } from '../../plan/read/scan.js';
import { Work } from '../../plan/read/work.js';
import { understoodAs, type NarrationContext } from '../../plan/narrate.js';
import type { QueryPlan } from '../../plan/query-plan.js';
import type { PlanContext } from './plan-types.js';

/** A phrase of "Understood as" without the words it was said in: "in 2019-04 (April 2019)" -> "in 2019-04". */
const bare = (phrase: string) => phrase.replace(/\s*\([^()]*\)\s*$/, '').trim();

/**
 * The note for what the model's plan changed of the reader's edit of the last plan, undefined when it kept all
 * of it (or the reader made no edit of it). The edit is readInThread's, for the words it could place.
 */
export function modelChangeNote(fragment: string, last: QueryPlan, modelPlan: QueryPlan, ctx: PlanContext, n: NarrationContext) {
  const edited = editPlan(new Work(scan(fragment, ctx)), last, ctx).plan;
  if (!edited) return undefined;
  const read = understoodAs(edited, n);
  const ran = understoodAs(modelPlan, n);
  const kept = new Set(ran.map(bare));
  const changed = read.filter((p) => !kept.has(bare(p)));
  if (!changed.length) return undefined;
  const wasRead = new Set(read.map(bare));
  const instead = ran.filter((p) => !wasRead.has(bare(p)));
  const now = instead.length ? `; the answer counts ${instead.map((p) => `"${bare(p)}"`).join(', ')} instead` : '';
  return `The model's query differs from what I read in your words: I read ${changed.map((p) => `"${bare(p)}"`).join(', ')}${now}. Check that this is the question you meant.`;
}
