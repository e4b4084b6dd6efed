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
  const own = last ? threadPlaces(text, last) : undefined;
  if (own) return { rest: own.text, last: last!, notes: own.notes };
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

/** The place kinds a person names by ordinal ("the 12th District", "the 27th Ward"). */
const ORDINAL_KINDS = [
  ['districts', 'district'],
  ['wards', 'ward'],
] as const;

/** "the 12th", "the 2nd?" with no noun after it (not "the 12th of March", "the 12th district"). */
const BARE_ORDINAL = /\bthe (\d{1,2})(?:st|nd|rd|th)\b(?! *(?:of\b|district|ward|dist\b|century))/gi;
/** "mine", "my district", "our ward": the person's own place, the one the thread is about. */
const OWN = /\b(?:(?:my|our) (?:own )?(district|ward)|mine|ours)\b/gi;
/** Words before "mine" that set a side beside the thread's answer ("put the 15th next to mine"). */
const BESIDE = /\b(?:next to|beside|alongside|against|vs\.?|versus) +$/i;
const MONTH_WORD =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|day|month)\b/i;

/**
 * A thread about one district (or ward) names places the way its people do: "Sorry, I meant the 12th", "what about
 * the 2nd?" (a bare ordinal: that kind of place, when no month or day is in play), "put the 15th next to mine",
 * "my district" (the one place the thread is about). Undefined when nothing is said that way, or the thread's
 * place is not one district or ward.
 */
function threadPlaces(text: string, last: QueryPlan): { text: string; notes: string[] } | undefined {
  const places = ORDINAL_KINDS.map(([key, noun]) => ({ noun, ids: last.filters[key] ?? last.versus?.[key] }));
  const kind = places.find((p) => p.ids?.length) ?? places.find((p) => last.groupBy.includes(p.noun));
  if (!kind) return undefined;
  const notes: string[] = [];
  let out = text;
  if (!MONTH_WORD.test(text) && !isDayScale(last))
    out = out.replace(BARE_ORDINAL, (all, n: string) => {
      notes.push(`"${all}": ${kind.noun} ${Number(n)}, as the thread is about ${kind.noun}s`);
      return `${kind.noun} ${Number(n)}`;
    });
  const own = kind.ids?.length === 1 ? kind.ids[0] : undefined;
  out = out.replace(OWN, (all, noun: string | undefined, at: number) => {
    if (own === undefined || (noun && noun.toLowerCase() !== kind.noun)) return all;
    notes.push(`"${all}": ${kind.noun} ${own}, the one this thread is about`);
    return BESIDE.test(out.slice(0, at)) ? 'it' : `${kind.noun} ${own}`;
  });
  return out === text ? undefined : { text: out, notes };
}

/** A thread about days, where "the 12th" is a day of the month. */
const isDayScale = (plan: QueryPlan) =>
  plan.groupBy.includes('date') ||
  (!!plan.filters.time && Date.parse(plan.filters.time.to) - Date.parse(plan.filters.time.from) <= 31 * 86_400_000);
