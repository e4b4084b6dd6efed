// "extend it to 2020", "extend that through 2021", "extend it back to 2005":
// the thread's period made longer at one end, the other end kept (2010-2015
// then "extend it to 2020": 2010-2020). Said in the notes.
import { periodLabel } from '../compile.js';
import type { QueryPlan } from '../query-plan.js';
import { termsOf } from './assemble.js';
import type { ReadContext } from './context.js';
import { planPhrases } from './describe.js';

// The asking around the verb ("could you", "please", "kindly", "I'd like to") and what is extended ("the period",
// "the analysis", "the series") carry no meaning of their own; the year (or years) said is where it now runs.
const POLITE = String.raw`(?:(?:and|now|ok|okay|so|please|kindly|then)[,]? +|(?:could|can|would|will) you (?:please +)?|let'?s +|i'?d like (?:you )?to +|i would like (?:you )?to +)*`;
const OBJECT = String.raw`(?: (?:it|that|this|(?:the|this|that) (?:range|period|time period|date range|series|years|analysis|timeframe|time frame|window|data|query|numbers|figures|results|table|chart|trend|count|counts|comparison)))?`;
const REACH = String.raw`(?:to cover|to include|so (?:it|that it) (?:covers|includes|runs (?:to|through))|to span|to|through|thru|until|till|up to|out to|into)`;
const EXTEND = new RegExp(
  String.raw`^${POLITE}(?:extend|stretch|widen|lengthen|expand|broaden)${OBJECT}( back)? ${REACH} (?:the years? )?(\d{4})(?:(?: (?:through|thru|to|until|and)|-|–) ?(\d{4}))?(?:,? (?:as well|too|please|instead))?[.!?]*$`,
  'i',
);

/** The last plan with its period extended to the year said, or undefined when the text is no such edit. */
export function readExtend(text: string, last: QueryPlan | null | undefined, ctx: ReadContext) {
  const m = EXTEND.exec(text.trim().replace(/\s+/g, ' '));
  const t = last?.filters.time;
  if (!m || !last || !t || last.compareWith) return undefined;
  const year = Number(m[2]);
  const until = m[3] ? Number(m[3]) : undefined;
  const plan: QueryPlan = structuredClone(last);
  let range: { from: string; to: string };
  let earlier: boolean;
  if (until !== undefined) {
    // "extend the period to cover 2019 through 2021": the thread's period and the years said, end to end
    if (until < year) return undefined;
    range = { from: minDate(`${year}-01-01`, t.from), to: maxDate(`${until + 1}-01-01`, t.to) };
    earlier = range.from < t.from;
  } else {
    earlier = Boolean(m[1]) || `${year}-01-01` < t.from;
    range = earlier ? { from: `${year}-01-01`, to: t.to } : { from: t.from, to: `${year + 1}-01-01` };
  }
  const lastYear = String(until ?? year);
  if (range.from >= range.to || lastYear > ctx.latestDate.slice(0, 4) || `${year}` < ctx.earliestDate.slice(0, 4)) return undefined;
  plan.filters.time = range;
  return {
    ok: true as const,
    plan,
    understood: planPhrases(plan, ctx),
    terms: termsOf(plan),
    edit: true as const,
    edits: [text.trim()],
    notes: [
      `"${text.trim()}": ${periodLabel(range)}, the thread's ${periodLabel(t)} extended ${earlier ? 'back' : 'on'} to ${until ?? year}`,
    ],
  };
}

const minDate = (a: string, b: string) => (a < b ? a : b);
const maxDate = (a: string, b: string) => (a > b ? a : b);
