// "extend it to 2020", "extend that through 2021", "extend it back to 2005":
// the thread's period made longer at one end, the other end kept (2010-2015
// then "extend it to 2020": 2010-2020). Said in the notes.
import { periodLabel } from '../compile.js';
import type { QueryPlan } from '../query-plan.js';
import { termsOf } from './assemble.js';
import type { ReadContext } from './context.js';
import { planPhrases } from './describe.js';

const EXTEND =
  /^(?:(?:and|now|ok|okay|so)[,]? +)?(?:extend|stretch|widen|lengthen)(?: (?:it|that|this|the (?:range|period|series|years)))?( back)? (?:to|through|thru|until|till|up to|out to) (\d{4})[.!?]*$/i;

/** The last plan with its period extended to the year said, or undefined when the text is no such edit. */
export function readExtend(text: string, last: QueryPlan | null | undefined, ctx: ReadContext) {
  const m = EXTEND.exec(text.trim());
  const t = last?.filters.time;
  if (!m || !last || !t || last.compareWith) return undefined;
  const year = Number(m[2]);
  const plan: QueryPlan = structuredClone(last);
  const earlier = Boolean(m[1]) || `${year}-01-01` < t.from;
  const range = earlier ? { from: `${year}-01-01`, to: t.to } : { from: t.from, to: `${year + 1}-01-01` };
  if (range.from >= range.to || `${year}` > ctx.latestDate.slice(0, 4) || `${year}` < ctx.earliestDate.slice(0, 4)) return undefined;
  plan.filters.time = range;
  return {
    ok: true as const,
    plan,
    understood: planPhrases(plan, ctx),
    terms: termsOf(plan),
    edit: true as const,
    edits: [text.trim()],
    notes: [`"${text.trim()}": ${periodLabel(range)}, the thread's ${periodLabel(t)} extended ${earlier ? 'back' : 'on'} to ${year}`],
  };
}
