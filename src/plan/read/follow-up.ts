// A follow-up edits the thread's last plan slot by slot of meaning, not word
// kind by word kind (../shared/design/QUERY_PLAN.md, principle 5):
//   - the period is one slot, however it is said: "2021", "April" (a bare month
//     takes the thread's year), "last year" / "the year before" (a step from the
//     thread's period), "in 2024 and 2025" (one stretch);
//   - a type replaces the types, a place the places; "only arrests" adds a flag;
//   - "by month instead" replaces the grouping ("also by district" adds one); a
//     grouping over a dimension the plan pins to one value widens that filter
//     ("by year" after 2012: every year), and a pin this fragment sets on the
//     grouped dimension narrows it away ("what about Austin?" after a top 5 of
//     areas: Austin's number);
//   - "in all of Chicago", "all years", "all types" remove their slot, and so do
//     "drop the year filter", "without the arrest filter", "drop the district";
//     "exclude domestic" negates the flag;
//   - "as a percentage" of a count of one kind: that kind's share of everything
//     in the thread's scope ("thefts in 2019" -> thefts as a share of all crimes);
//   - "top 10 instead" sets the ranking; "compare with 2018" the comparison.
// Every widening and every step is said in the answer's notes.
import { periodLabel } from '../compile.js';
import { QueryPlan, type Dimension, type Filters, type TimeRange } from '../query-plan.js';
import { DISTINCT_OF, PER_OF, termsOf } from './assemble.js';
import type { ReadContext } from './context.js';
import { addDays, monthOf, monthRange, yearOf, yearRange } from './dates.js';
import { mergeFilters, sharePartPieces } from './filters.js';
import { isOneDay, isOneMonth, isOneYear, joinPeriods, lastDay, monthsBetween, monthsOfYear, stepPeriod, yearWithin } from './periods.js';
import { isSubject, type Piece, type RemovableSlot } from './pieces.js';
import { bothSides } from './compare-rules.js';
import { applySort, orderDims } from './sort-edit.js';
import type { Work } from './work.js';

/** A verb right after the measure, with no subject between: "how many were ...", "what percentage was ...". */
const BACK_VERBS = new Set(['were', 'was', 'are', 'is']);

/** Follow-up words that mark an edit wherever they stand ("top 10 instead", "also by district", "how many of them"). */
const EDIT_ANYWHERE = new Set(['instead', 'also', 'as well', 'too', 'again', 'rather', 'ones', 'them', 'those']);

/** Words before "as a percentage" that point back at the last answer ("show that", "what is the trend"). */
const POINTING_BACK = new Set([
  'what',
  'whats',
  "what's",
  'is',
  'was',
  'show',
  'me',
  'give',
  'put',
  'that',
  'it',
  'this',
  'those',
  'these',
  'them',
  'the',
  'trend',
  'numbers',
  'figures',
  'and',
  'now',
  'so',
  'can',
  'you',
  'please',
]);

/** "that year", "the same period" in an edit: the last answer's period, kept (nothing to change). */
const BACK_PERIOD = /^(?:year|month|period|time)$/;

/** Groupings along time that "the totals" add up. */
const SERIES = new Set<Dimension>(['year', 'month', 'date']);

/** "the total", "the 2019 and 2020 totals": the sum of the last answer's series ("totals" placed here). */
function saysTotals(work: Work): boolean {
  const said = work.of('measure').some((p) => /^(?:the )?totals?$/i.test(p.text));
  const loose = [...work.bad].filter((i) => work.word(i) === 'totals' || work.word(i) === 'total');
  for (const i of loose) work.bad.delete(i);
  return said || loose.length > 0;
}

/** Words that make a plain "crimes" every crime: "all crimes", "every incident", "crimes overall". */
const WIDENING = new Set(['all', 'every', 'any', 'total', 'overall', 'whole', 'general', 'altogether']);

/** What gives a question its own scope: a period or a place, said or removed. */
const SCOPE_KINDS = new Set<Piece['kind']>(['time', 'months', 'weekdays', 'weekend', 'hours', 'night', 'place', 'allPlaces', 'allTime']);

/**
 * Whether the text is a fragment that edits the thread's last plan, rather than a question complete on
 * its own (the one follow-up rule: see readInThread). A fragment starts with a follow-up word ("and in
 * 2021?", "only arrests", "what about burglaries?"), says "instead"/"also"/"them" anywhere, or names no
 * subject of its own ("by month", "in 2020", "compare with 2018", "which district had the most?"). A text
 * with a subject (a crime type, "crimes", "arrests"; crime types as the grouping; an arrest rate) and
 * anything more is complete when it is a question ("Which 10 community areas had the most battery
 * reports?") or states its own scope ("Top 5 crime types in 2018", "Arrest rate by district in 2021",
 * "thefts in 2020"). A noun phrase with a subject but no scope ("top 5 crime types", "thefts by month")
 * keeps the thread's place and period: an edit. A subject alone ("burglaries?") swaps the subject.
 */
export function isFragment(work: Work): boolean {
  const live = work.live();
  if (!live.length) return false;
  if (live.some((p) => p.kind === 'followUp' && (p.start === 0 || EDIT_ANYWHERE.has(p.text.toLowerCase())))) return true;
  // "do it for robberies and assaults in district 4", "do the same for 2020": the last answer done again
  const [w0, w1] = [work.word(0), work.word(1)];
  if (w0 === 'do' && ['it', 'that', 'this', 'the', 'same'].includes(w1 ?? '')) return true;
  // "drop the year filter", "the whole year", "same months in 2020": only said of a thread's last answer
  if (live.some((p) => p.kind === 'remove' || p.kind === 'wholeYear' || p.kind === 'samePeriod')) return true;
  // "how many were arrests?", "what share was domestic?": the measure points back at the last answer's subject
  if (live.some((p) => p.kind === 'measure' && BACK_VERBS.has(work.word(p.end) ?? ''))) return true;
  // "as a share of all crimes", "as an arrest rate": the last answer's count said another way
  // ("what is that as a percentage", "show the trend as a share": only words pointing back before it)
  const pointsBack = (p: Piece) => work.scan.tokens.slice(0, p.start).every((x) => POINTING_BACK.has(x.t));
  if (live.some((p) => p.kind === 'measure' && /^as\b/i.test(p.text) && pointsBack(p))) return true;
  // a subject: what is counted ("thefts", "crimes", "arrests"), crime types as the grouping, an arrest rate
  const subjectLike = (p: Piece) =>
    isSubject(p) || (p.kind === 'dim' && p.dim === 'type') || (p.kind === 'measure' && p.arrestRate === true);
  const pureSubject = (p: Piece) =>
    p.kind === 'type' || p.kind === 'category' || p.kind === 'all' || (p.kind === 'flag' && p.noun === true);
  // complete in shape: a subject and something more than subjects ("burglaries and robberies?" only swaps the subject)
  const whole = live.some((s) => subjectLike(s) && live.some((q) => q !== s && q.kind !== 'followUp' && !pureSubject(q)));
  if (!whole) return true;
  // "top 5 crime types", "arrest rate by year", "which crime type was the most common?": no subject of its own
  // (what is counted), no scope, no count asked ("how many different crime types are there?" is a question):
  // an edit of the last answer, in its place and period
  const counted = live.some((p) => p.kind === 'measure' && (p.measure === 'count' || p.measure === 'distinct'));
  return !hasOwnScope(work) && !counted && !live.some(isSubject);
}

/** The text says its own period or place (or removes them: "all years", "in all of Chicago"). */
const hasOwnScope = (work: Work): boolean => work.live().some((p) => SCOPE_KINDS.has(p.kind));

const PLACE_KEYS = ['areas', 'districts', 'wards', 'beats', 'blocks'] as const;

export interface Edit {
  plan?: QueryPlan;
  terms: string[];
  /** what the edit did beyond the words, for the answer's notes ("by year: every year, not only 2012") */
  notes: string[];
}

export function editPlan(work: Work, last: QueryPlan, ctx: ReadContext, earlier?: QueryPlan | null): Edit {
  const plan: QueryPlan = structuredClone(last);
  const notes: string[] = [];
  const live = work.live();
  const also = live.some((p) => p.kind === 'followUp' && p.also);
  // "in order of district": the order's axis, not a grouping
  const ordering = orderDims(work, work.of('dim'), last);
  let dims = work.of('dim').filter((d) => !ordering.includes(d));

  // "as a percentage of all crimes that year": the period in force, said back
  if (last.filters.time)
    for (const i of [...work.bad])
      if (BACK_PERIOD.test(work.word(i) ?? '') && ['that', 'same'].includes(work.word(i - 1) ?? '')) work.bad.delete(i);

  // the measure
  const cues = work.of('measure');
  const share = cues.find((c) => c.arrestRate) ?? cues.find((c) => c.measure === 'share');
  const pending = cues.find((c) => c.measure === 'average' || c.measure === 'median' || c.measure === 'percentile');
  const distinct = cues.find((c) => c.measure === 'distinct');
  let part: Piece[] = [];
  if (share) {
    part = share.arrestRate ? [] : sharePartPieces(share, live, work, isSubject);
    const f = mergeFilters(part, work, share.arrestRate ? { arrest: true } : {});
    const kind = !Object.keys(f).length && !share.arrestRate ? kindAsShare(plan, notes) : undefined;
    // an arrest rate of arrests ("how many had an arrest" then "as an arrest rate"): of every incident in scope
    if (share.arrestRate && plan.filters.arrest === true) {
      delete plan.filters.arrest;
      notes.push('the arrest rate: of every incident in the same scope, not only those with an arrest');
    }
    // "what percent is arrest?" after arrests, "what share was domestic" after domestic batteries: the part the
    // last answer filtered to is the share now, of every incident in the same scope (not 100% of itself)
    for (const flag of ['arrest', 'domestic'] as const)
      if (f[flag] !== undefined && plan.filters[flag] === f[flag]) {
        delete plan.filters[flag];
        notes.push(`the share: of every incident in the same scope, not only those ${flag === 'arrest' ? 'with an arrest' : 'domestic'}`);
      }
    if (Object.keys(f).length) plan.measure = { kind: 'share', part: f };
    // "what percentage of all crimes that year were thefts?" after the top types: one share, not one per type
    if ((f.types || f.category) && plan.groupBy.includes('type')) {
      plan.groupBy = plan.groupBy.filter((g) => g !== 'type');
      delete plan.top;
      delete plan.order;
      notes.push('a share of a crime type: of all crimes, no longer by crime type');
    } else if (kind) plan.measure = { kind: 'share', part: kind };
    else if (plan.measure.kind === 'share') {
      // "that share", "the highest percentage" after a share: the share in force
    } else if (!share.arrestRate && plan.groupBy.length && plan.measure.kind === 'count') {
      // "what percent of each", "as a percentage" of a ranking: each group's part of the total over every group
      plan.ofTotal = true;
      delete plan.compareWith;
    } else if (!share.arrestRate && plan.groupBy.length) work.drop(share, 'each group as a percentage of the total needs a count by group');
    else work.drop(share, 'a share of what?');
  } else if (pending) {
    const perPiece = dims.find((d) => d.per && PER_OF[d.dim]) ?? dims.find((d) => PER_OF[d.dim] && !d.by);
    const per = perPiece ? PER_OF[perPiece.dim] : 'per' in last.measure ? last.measure.per : undefined;
    dims = dims.filter((d) => d !== perPiece);
    if (!per) work.drop(pending, 'an average per what?');
    else if (pending.measure === 'average') plan.measure = { kind: 'average_per', per };
    else if (pending.p === undefined) work.drop(pending, 'which percentile?');
    else plan.measure = { kind: 'percentile_per', per, p: pending.p };
  } else if (distinct) {
    const of = dims.find((d) => d.start === distinct.end && !d.by);
    if (of && DISTINCT_OF.has(of.dim)) {
      plan.measure = { kind: 'distinct', of: of.dim as 'block' };
      dims = dims.filter((d) => d !== of);
    } else work.drop(distinct, 'different what?');
  } else if (cues.some((c) => c.measure === 'count') || work.of('rank').some((r) => r.common && /common|frequent|often/i.test(r.text))) {
    // "most common crime type" after a share: how often, a count
    plan.measure = { kind: 'count' };
  } else if ('per' in plan.measure) {
    // "per block instead" after an average
    const perPiece = dims.find((d) => d.per && PER_OF[d.dim]);
    if (perPiece) {
      plan.measure = { ...plan.measure, per: PER_OF[perPiece.dim]! };
      dims = dims.filter((d) => d !== perPiece);
    }
  }

  // "all types", "all wards": the slot removed, not a grouping
  const saysAll = (d: Piece) => work.word(d.start - 1) === 'all' || /^(across |over |for |in )?(all|every) /i.test(d.text);
  // a ranking said of that dimension ("top 5 of all types", "all types, top 5"), not one in another clause of the
  // text ("all crime types, which five had the fewest?": the last answer's groups ranked, every type counted)
  const rankings = [...work.of('rank'), ...work.of('number')];
  const clauseOf = (i: number) => (work.scan.words.source.slice(0, work.scan.tokens[i]?.start ?? 0).match(/[,;:]/g) ?? []).length;
  const rankedOf = (d: Piece) => rankings.some((r) => clauseOf(r.start) === clauseOf(d.start));
  const ranked = rankings.length > 0;
  // "for every year since 2010": each year of the period said, a series (not the years let go)
  const eachOfPeriod = (d: Piece) => d.kind === 'dim' && d.dim === 'year' && work.of('time').length > 0;
  const every = dims.filter(
    (d) => REMOVABLE.has(d.dim) && (!ranked || (!rankedOf(d) && last.groupBy.length > 0)) && saysAll(d) && !eachOfPeriod(d),
  );
  // "show all districts" of an answer by district (a ranking, the fewest): every group listed, not the slot removed
  const listAll = every.filter((d) => last.groupBy.includes(d.dim));
  const removals = every.filter((d) => !listAll.includes(d));
  if (listAll.length) {
    delete plan.top;
    delete plan.none;
  }
  dims = dims.filter((d) => !every.includes(d));

  // "And battery?" after "what share of all crimes were thefts": the type inside the share, not the crimes it is of
  const inShare = shareTypeEdit(work, plan, live, part, also);
  if (inShare.length) part = [...part, ...inShare];

  // filters: each slot said replaces the same slot of the last plan
  const f: Filters = plan.filters;
  const pieces = live.filter((p) => !part.includes(p));
  const said = (kinds: Piece['kind'][]) => pieces.filter((p) => kinds.includes(p.kind));
  const replace = (kinds: Piece['kind'][], keys: (keyof Filters)[]) => {
    const ps = said(kinds);
    if (!ps.length) return;
    for (const k of keys) delete f[k];
    mergeFilters(ps, work, f);
  };
  // "also robberies", "add robberies" after thefts: both; a type said otherwise replaces the types
  const addedTypes = said(['type']);
  const leftOut = addedTypes.filter((p) => p.kind === 'type' && p.negated);
  // "excluding thefts": taken out of the types (or the category) in force, not a new subject
  if (leftOut.length && leftOut.length === addedTypes.length && !said(['category']).length) mergeFilters(leftOut, work, f);
  else if (
    also &&
    addedTypes.length &&
    !said(['category']).length &&
    f.types &&
    !f.descriptions &&
    !f.exceptTypes &&
    !addedTypes.some((p) => p.kind === 'type' && (p.descriptions || p.negated))
  )
    mergeFilters(addedTypes, work, f);
  else replace(['type', 'category'], ['types', 'exceptTypes', 'category', 'descriptions']);
  // "only incidents with an arrest", "just the cases that were domestic": the plain noun a flag is said of, not
  // every crime ("all crimes with an arrest", "any incident", "crimes overall" still let the type go)
  const headNoun = (p: Piece) =>
    said(['flag']).length > 0 && !WIDENING.has(work.word(p.start - 1) ?? '') && !WIDENING.has(work.word(p.end) ?? '');
  if (
    !said(['type', 'category']).length &&
    said(['all']).some((p) => !headNoun(p)) &&
    !said(['flag']).some((p) => p.kind === 'flag' && p.noun)
  ) {
    delete f.types;
    delete f.exceptTypes;
    delete f.category;
    delete f.descriptions;
  }
  mergeFilters(
    said(['flag']).map((p) => ({ ...p })),
    work,
    withoutFlags(f, said(['flag'])),
  );
  replace(['location'], ['locations', 'exceptLocations']);
  if (!addedPlace(also, said(['place']), work, plan, notes)) replace(['place'], [...PLACE_KEYS]);
  // "show all districts" of an answer by district cut to a few: every district listed
  const listsGroups = said(['allPlaces']).some((p) =>
    last.groupBy.some((d) => PLACE_OF[d] && p.text.toLowerCase().includes(d.replace('community_', ''))),
  );
  if (listsGroups) {
    delete plan.top;
    delete plan.none;
  }
  if (said(['allPlaces']).length) {
    if (!PLACE_KEYS.some((k) => f[k]) && !listsGroups) notes.push('the last answer was already over all of Chicago');
    for (const k of PLACE_KEYS) delete f[k];
    // "how did the citywide rate compare" after the lowest district (no place to let go): one figure for
    // the city, the grouping by place and its ranking let go; by district in Austin, "citywide" lets Austin go
    const byPlace = plan.groupBy.filter((g) => PLACE_OF[g]);
    const hadPlace = PLACE_KEYS.some((k) => last.filters[k]);
    if (!listsGroups && !hadPlace && byPlace.length && !dims.some((d) => PLACE_OF[d.dim])) {
      plan.groupBy = plan.groupBy.filter((g) => !PLACE_OF[g]);
      notes.push(`citywide: all of Chicago, no longer by ${byPlace.join(' and ').replace('_', ' ')}`);
    }
  }
  replace(['night', 'hours'], ['night', 'hours']);
  replace(['weekend', 'weekdays'], ['weekend', 'weekdays']);
  for (const r of removals) removeSlot(r.dim, f, plan);

  const periodSet = editPeriod(work, last, plan, notes, ctx);
  // "forget the watch, all hours": one slot said twice is taken away once (no note that it was not there)
  for (const slot of new Set(work.of('remove').map((r) => r.slot))) takeAway(slot, plan, notes);
  const months = said(['months']).filter((p) => !periodSet.monthsTaken.includes(p));
  if (months.length) {
    delete f.months;
    mergeFilters(months, work, f);
  }

  // groupings: a new one replaces the last ("also" adds it); one this fragment pins to a value narrows away
  const before = plan.groupBy.join();
  // "the busiest month", "top 3 months" of a by-month answer: months of that series, not months of the year
  const fresh = [
    ...new Set(dims.map((d) => (d.dim === 'month_of_year' && last.groupBy.includes('month') ? 'month' : d.dim))),
  ] as Dimension[];
  if (fresh.length) plan.groupBy = (also ? [...new Set([...plan.groupBy, ...fresh])] : fresh).slice(0, 3);
  if (plan.groupBy.length > 2) {
    for (const d of dims) work.drop(d, 'more than two groupings');
    plan.groupBy = last.groupBy;
  }
  for (const d of fresh) if (plan.groupBy.includes(d)) widen(d, plan, notes, ctx);
  const pinned = pinnedNow(plan, said, periodSet.set);
  const narrowed = plan.groupBy.filter((g) => pinned.has(g));
  plan.groupBy = plan.groupBy.filter((g) => !pinned.has(g));
  // "compare the 2019 and 2020 totals", "what's the total?" after a by-month answer: one figure per period
  if (saysTotals(work) && !dims.length && !plan.top && !work.of('rank').length && !work.of('number').length) {
    const series = plan.groupBy.filter((g) => SERIES.has(g));
    if (series.length) {
      plan.groupBy = plan.groupBy.filter((g) => !SERIES.has(g));
      notes.push(`the totals: one figure for the whole period, no longer by ${series.join(' and ')}`);
    }
  }

  // the ranking
  const numbers = work.of('number');
  const ranks = work.of('rank').filter((r) => !r.orderOnly);
  if (numbers.length || ranks.length) {
    const order = ranks[0]?.order ?? plan.top?.order ?? 'desc';
    // "which districts had the most?": every group, most first; "which one had the most?", "which had the
    // fewest?": the first, with its ties
    const plural = dims.some((d) => !d.by && d.plural === true);
    const singular = dims.some((d) => !d.by && d.plural === false);
    // "and the fewest?" after a top 5: the bottom 5 (the same N, the other end); "which had the fewest?": the one
    const flipped = !!last.top && last.top.n > 1 && ranks.length > 0 && ranks[0].order !== last.top.order;
    const asksWhich = work.scan.tokens.some((x) => x.t === 'which' || x.t === 'what');
    if (numbers.length) plan.top = { n: numbers[0].n, order };
    else if (flipped && !singular && !asksWhich) plan.top = { n: last.top!.n, order };
    else if (singular)
      plan.top = { n: 1, order }; // "which location type was the most common?" after a top 3
    else if (plural && order === 'desc' && !plan.top) plan.order = 'measure';
    else plan.top = { n: 1, order };
  } else if (plan.groupBy.join() !== before || dims.some((d) => /\btrend\b|over time/i.test(d.text))) {
    // "show the trend as a percentage" after the worst year: the whole series again
    delete plan.top;
  }
  // "which districts had none?": only the groups with none; a ranking said now replaces it
  if (work.of('none').length) {
    plan.none = true;
    delete plan.top;
    delete plan.order;
    delete plan.compareWith;
  } else if (numbers.length || ranks.length) delete plan.none;
  // an average per block (or a count of different blocks) is not also grouped by block
  const over =
    plan.measure.kind === 'distinct'
      ? plan.measure.of
      : 'per' in plan.measure
        ? plan.measure.per === 'day'
          ? 'date'
          : plan.measure.per
        : undefined;
  if (over && plan.groupBy.includes(over as Dimension)) {
    plan.groupBy = plan.groupBy.filter((g) => g !== over);
    if (!numbers.length) delete plan.top;
  }
  if (!plan.groupBy.length) {
    if (plan.none && !narrowed.length)
      for (const p of work.of('none')) work.drop(p, 'which of what had none? ("which districts had none?")');
    delete plan.none;
    // a ranking said now needs a grouping; one the edit narrowed away goes with its grouping
    if (plan.top && !narrowed.length)
      for (const p of [...numbers, ...ranks]) work.drop(p, 'a ranking needs a grouping ("top 5 districts")');
    delete plan.top;
    delete plan.order;
  }
  applySort(work, plan);
  for (const p of work.of('change')) if (!plan.groupBy.length && !plan.compareWith) work.drop(p, 'a change needs a time axis');
  for (const p of work.of('grouping')) if (!plan.groupBy.length) work.drop(p, 'a distribution needs a grouping');

  bothSides(work, last, earlier, plan, notes);
  // each group's percent of the total holds of a count by group only, and not beside a second period
  if (plan.measure.kind !== 'count' || !plan.groupBy.length || plan.compareWith) delete plan.ofTotal;
  const parsed = QueryPlan.safeParse(plan);
  if (!parsed.success) {
    work.problems.push(`not a plan: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    return { terms: [], notes };
  }
  const calendar = dims.some((d) => d.calendar) && parsed.data.groupBy.includes('date') ? ['calendar_day'] : [];
  return { plan: parsed.data, terms: termsOf(parsed.data, calendar), notes };
}

/** The filters with the flags about to be said removed (a flag said again replaces the last value). */
function withoutFlags(f: Filters, flags: Piece[]): Filters {
  for (const p of flags) if (p.kind === 'flag') delete f[p.flag];
  return f;
}

const TIME_GROUPS = new Set<Dimension>(['year', 'month', 'month_of_year', 'weekday', 'hour', 'date', 'day_of_year']);

/** The filters each removable slot holds. */
const SLOT_KEYS: Record<RemovableSlot, (keyof Filters)[]> = {
  time: ['time', 'months'],
  place: [...PLACE_KEYS],
  type: ['types', 'exceptTypes', 'category', 'descriptions'],
  arrest: ['arrest'],
  domestic: ['domestic'],
  night: ['night', 'hours'],
  weekend: ['weekend', 'weekdays'],
  location: ['locations', 'exceptLocations'],
};

/** "drop the year filter", "without the arrest filter", "drop the district": the slot taken away (said when it was not there). */
function takeAway(slot: RemovableSlot, plan: QueryPlan, notes: string[]): void {
  const f = plan.filters;
  const keys = SLOT_KEYS[slot];
  if (!keys.some((k) => f[k] !== undefined)) notes.push(`the last answer had no ${slot === 'time' ? 'period' : slot} filter to drop`);
  for (const k of keys) delete f[k];
  if (slot === 'time') delete plan.compareWith;
}

/**
 * "as a percentage" with no part said, of a count of one kind (thefts, property crimes): that kind as a
 * share of every incident in the thread's scope, the kind taken out of the filters. Undefined when the
 * last answer counts no kind or is grouped by one (the share of each group in the total is not a plan).
 */
function kindAsShare(plan: QueryPlan, notes: string[]): Filters | undefined {
  const f = plan.filters;
  // grouped by places or kinds, "as a percentage" is each group's part of the total: not this
  if (plan.measure.kind !== 'count' || plan.groupBy.some((d) => !TIME_GROUPS.has(d))) return undefined;
  // the kind: the types (or category) counted, else the arrest or domestic flag ("crimes with an arrest")
  const keys = f.types || f.category ? (['types', 'exceptTypes', 'category', 'descriptions'] as const) : (['arrest', 'domestic'] as const);
  if (!keys.some((k) => f[k] !== undefined)) return undefined;
  const part: Filters = {};
  for (const k of keys) {
    if (f[k] === undefined) continue;
    Object.assign(part, { [k]: f[k] });
    delete f[k];
  }
  notes.push('as a percentage: of every crime in the same place and period');
  return part;
}

const REMOVABLE = new Set<Dimension>(['type', 'location', 'community_area', 'district', 'ward', 'beat', 'block', 'year']);

/**
 * The types said in a follow-up to a share whose part is a type and whose whole is not ("share of all crimes that
 * were thefts"): they replace the part's type. Returns the pieces placed there.
 */
function shareTypeEdit(work: Work, plan: QueryPlan, live: Piece[], part: Piece[], also: boolean): Piece[] {
  const m = plan.measure;
  if (m.kind !== 'share' || !(m.part.types || m.part.category) || plan.filters.types || plan.filters.category || also) return [];
  const types = live.filter((p) => (p.kind === 'type' || p.kind === 'category') && !part.includes(p));
  if (!types.length || types.some((p) => p.kind === 'type' && (p.negated || p.descriptions))) return [];
  const into = { ...m.part };
  delete into.types;
  delete into.exceptTypes;
  delete into.category;
  mergeFilters(types, work, into);
  m.part = into;
  return types;
}

/** "all types", "all wards", "all years": that slot of the plan removed. */
function removeSlot(d: Dimension, f: Filters, plan: QueryPlan): void {
  if (d === 'type') {
    delete f.types;
    delete f.exceptTypes;
    delete f.category;
    delete f.descriptions;
  } else if (d === 'location') {
    delete f.locations;
    delete f.exceptLocations;
  } else if (d === 'year') {
    delete f.time;
    delete plan.compareWith;
  } else for (const k of PLACE_KEYS) delete f[k];
}

/**
 * The period slot: what this fragment says of the period and the comparison, however said. Steps ("last
 * year", "the year before") move the fragment's own period, else the thread's; a bare month takes the
 * thread's year when the thread's period lies in one; a set of periods that run on is one stretch.
 * `set`: the fragment set the period; `monthsTaken`: the month pieces read as that period.
 */
function editPeriod(
  work: Work,
  last: QueryPlan,
  plan: QueryPlan,
  notes: string[],
  ctx: ReadContext,
): { set: boolean; monthsTaken: Piece[] } {
  const f = plan.filters;
  const ref = last.filters.time;
  const cmp = work.of('compare');
  const same = work.of('samePeriod');
  const stated = work.of('time').filter((p) => !p.step);
  const steps = work.of('time').filter((p) => p.step);
  // a season that runs on within a year ("the summer") is a period of the thread's year, as a month is
  const monthPieces = work
    .of('months')
    .filter((p) => p.months.length && (!SEASONS.has(p.label.toLowerCase()) || monthsOfYear(2000, p.months) !== undefined));
  const refYear = ref ? yearWithin(ref) : undefined;
  const periods: { piece: Piece; range: TimeRange }[] = stated.map((p) => {
    // "same months in 2020" after January to March 2021: January to March 2020; "what about 2020" after April
    // 2019 (a part of one year, said as a month or a season): April 2020
    // "and the previous 3 years?" after the last 3 years: as long again, right before (not the same years again)
    const len = ref && monthsBetween(ref, { from: ref.to, to: ref.to });
    if (ref && len && p.range.from === ref.from && p.range.to === ref.to && /\b(?:previous|prior|preceding)\b/i.test(p.text)) {
      const range = stepPeriod(ref, { unit: 'month', by: -len });
      notes.push(`"${p.text}": ${periodLabel(range)}, the period right before the thread's ${periodLabel(ref)}`);
      return { piece: p, range };
    }
    const y = yearWithin(p.range);
    // (its own year said again is the whole year: "in 2019" after April 2019)
    const part =
      ref && yearWithin(ref) !== undefined && !isOneYear(ref) && monthPieces.length === 0 && stated.length === 1 && y !== yearWithin(ref);
    if ((same.length || part) && ref && y !== undefined && isOneYear(p.range) && yearWithin(ref) !== undefined) {
      const range = stepPeriod(ref, { unit: 'year', by: y - yearOf(ref.from) });
      notes.push(
        `"${same.length ? `${same[0].text} ` : ''}${p.text}": ${periodLabel(range)}, the same part of the year as the thread's ${periodLabel(ref)}`,
      );
      return { piece: p, range: { ...range, said: undefined } };
    }
    return { piece: p, range: p.range };
  });
  const monthsTaken: Piece[] = [];
  if (!stated.length && refYear !== undefined) {
    // "and April?" after March 2020 or after 2020: April 2020; "the summer" after 2018: June to August 2018
    for (const p of monthPieces) {
      const range = monthsOfYear(refYear, p.months);
      if (!range) continue;
      periods.push({ piece: p, range: { ...range, said: `${p.text} ${refYear}` } });
      monthsTaken.push(p);
    }
  }
  const whole = work.of('wholeYear');
  if (!stated.length && !monthsTaken.length && whole.length) {
    // "the whole year" after January to March 2021: 2021
    if (refYear !== undefined) periods.push({ piece: whole[0], range: { ...yearRange(refYear), said: String(refYear) } });
    else for (const p of whole) work.drop(p, ref ? "the thread's period spans more than one year" : 'which year? ("in 2021")');
  }
  // a step counts from the period this fragment states ("2021 compared with the year before"), else the thread's
  const base = periods[0]?.range ?? ref;
  for (const p of steps) {
    const step = p.step!;
    if (base) {
      const range = stepPeriod(base, step, p.text);
      periods.push({ piece: p, range });
      notes.push(`"${p.text}" is ${periodLabel(range)}, counted from ${base === ref ? "this thread's" : 'the'} ${periodLabel(base)}`);
    } else if (step.by > 0) work.drop(p, `"${p.text}" needs a period to count from ("in 2019")`);
    else {
      periods.push({ piece: p, range: p.range });
      notes.push(`"${p.text}" is ${periodLabel(p.range)}, counted from the data's last day`);
    }
  }
  periods.sort((a, b) => a.piece.start - b.piece.start);

  if (work.of('allTime').length) {
    delete f.time;
    delete plan.compareWith;
  }
  if (cmp.length && periods.length === 1) {
    plan.compareWith = periods[0].range;
    if (!f.time) {
      // "compare with 2018" after a ranking over every year: every year on record against 2018, said so
      f.time = { from: yearRange(yearOf(ctx.earliestDate)).from, to: addDays(ctx.latestDate, 1), said: 'every year on record' };
      notes.push(`compared: every year on record (${periodLabel(f.time)}) against ${periodLabel(plan.compareWith)}`);
      return { set: true, monthsTaken };
    }
    return { set: false, monthsTaken };
  }
  if (cmp.length && periods.length === 2) {
    const [a, b] = periods;
    const between = cmp.some((c) => c.start >= a.piece.end && c.end <= b.piece.start);
    const [t, w] = between ? [a, b] : a.range.from > b.range.from ? [a, b] : [b, a];
    f.time = t.range;
    plan.compareWith = w.range;
    if (monthsTaken.length) delete f.months;
    return { set: true, monthsTaken };
  }
  if (cmp.length) {
    for (const c of cmp) work.drop(c, 'compare with what? (a period: "compare with 2018")');
    return { set: false, monthsTaken };
  }
  if (!periods.length) return { set: false, monthsTaken };
  const added = addedPeriod(work, periods, ref, plan, notes);
  if (added !== undefined) return { set: added, monthsTaken };
  const joined = periods.length === 1 ? periods[0].range : joinPeriods(periods.map((p) => p.range));
  if (!joined) {
    for (const p of periods.slice(1))
      work.drop(p.piece, 'two periods with a gap between them (say "2019 through 2021", or "2019 compared with 2021")');
    return { set: false, monthsTaken };
  }
  if (plan.compareWith && f.time) {
    // "and 2021?" after 2020 against 2019: the comparison keeps its distance (2021 against 2020)
    const moved = monthsBetween(f.time, joined);
    const inYear = yearWithin(f.time) !== undefined && yearWithin(joined) === yearWithin(f.time) && !isOneYear(joined);
    const otherYear = yearWithin(plan.compareWith);
    if (inYear && otherYear !== undefined && isOneYear(plan.compareWith)) {
      // "just July, both years" after 2021 against 2020: July 2021 against July 2020 (the same part of each year)
      plan.compareWith = stepPeriod(joined, { unit: 'year', by: otherYear - yearOf(joined.from) });
      notes.push(`compared with ${periodLabel(plan.compareWith)}, the same part of the other year`);
    } else if (moved !== undefined && moved !== 0) {
      plan.compareWith = stepPeriod(plan.compareWith, { unit: 'month', by: moved });
      notes.push(`compared with ${periodLabel(plan.compareWith)}, as far before as the thread's comparison was`);
    }
  }
  f.time = periods.length === 1 ? joined : { ...joined, said: undefined };
  if (monthsTaken.length) delete f.months;
  return { set: true, monthsTaken };
}

/**
 * "add 2013", "2013 too", "also 2013" after 2023: the period said is added to the thread's, not put in its
 * place. Of one year (or month) against another: the two side by side (2023 beside 2013); of a series by year,
 * or a stretch of years the period runs on from: the stretch made longer. Undefined when no period is added
 * ("and 2013?" replaces it); true when the period was set, false when it stays.
 */
function addedPeriod(
  work: Work,
  periods: { piece: Piece; range: TimeRange }[],
  ref: TimeRange | undefined,
  plan: QueryPlan,
  notes: string[],
): boolean | undefined {
  // "add 2013", "2013 too", "also 2013": the adding word leads or closes the fragment ("I would also like the
  // numbers for 2018" asks for 2018's)
  const n = work.scan.tokens.length;
  const adding = work
    .live()
    .some((p) => p.kind === 'followUp' && p.also && (p.start === 0 || p.end >= n - 1 || /^(?:add|plus)$/i.test(p.text)));
  if (!adding || !ref || periods.length !== 1 || plan.compareWith || work.of('wholeYear').length) return undefined;
  const said = periods[0].range;
  if (said.from < ref.to && ref.from < said.to) return undefined; // inside the thread's period: not a second one
  const hull = joinPeriods([ref, said]);
  const single = (t: TimeRange) => isOneYear(t) || isOneMonth(t);
  if (!plan.groupBy.includes('year') && single(ref) && single(said) && isOneYear(ref) === isOneYear(said)) {
    // the later period first, the earlier beside it (as "2023 compared with 2022")
    const [main, other] = said.from > ref.from ? [said, ref] : [ref, said];
    plan.filters.time = main;
    plan.compareWith = other;
    notes.push(`${periodLabel(said)} beside ${periodLabel(ref)}: both, not one in place of the other`);
    return main === said;
  }
  if (hull) {
    plan.filters.time = { ...hull, said: undefined };
    notes.push(`${periodLabel(said)} added: ${periodLabel(plan.filters.time)}`);
    return true;
  }
  work.drop(periods[0].piece, `a period apart from the thread's ${periodLabel(ref)} (say "compare with ${periodLabel(said)}")`);
  return false;
}

const SEASONS = new Set(['summer', 'winter', 'spring', 'fall', 'autumn']);

/** A grouping over a dimension the plan pins to one value widens that filter, and says so. */
function widen(d: Dimension, plan: QueryPlan, notes: string[], ctx: ReadContext): void {
  const f = plan.filters;
  const t = f.time;
  const single = <T>(xs: T[] | undefined): xs is [T] => xs?.length === 1;
  switch (d) {
    case 'year':
      if (t && yearWithin(t) !== undefined) {
        // March 2020 by year: every March
        if (isOneMonth(t) && !f.months) f.months = [monthOf(t.from)];
        notes.push(`by year: every year, not only ${periodLabel(t)}`);
        delete f.time;
        delete plan.compareWith;
      }
      return;
    case 'month':
      // March 2020 by month: all of 2020
      if (t && yearWithin(t) !== undefined && monthOf(t.from) === monthOf(lastDay(t))) {
        notes.push(`by month: all of ${yearOf(t.from)}, not only ${periodLabel(t)}`);
        f.time = yearRange(yearOf(t.from));
        delete plan.compareWith;
      }
      return;
    case 'date':
      if (t && isOneDay(t)) {
        notes.push(`by day: all of ${periodLabel(monthRange(yearOf(t.from), monthOf(t.from)))}, not only ${t.from}`);
        f.time = monthRange(yearOf(t.from), monthOf(t.from));
      }
      return;
    case 'month_of_year':
      if (single(f.months)) {
        notes.push('by month: every month of the year, not only one');
        delete f.months;
      }
      return;
    case 'weekday':
      if (single(f.weekdays)) {
        notes.push('by weekday: every day of the week, not only one');
        delete f.weekdays;
      }
      return;
    case 'hour':
      if (f.hours && (f.hours.to - f.hours.from + 24) % 24 === 1) {
        notes.push('by hour: every hour, not only one');
        delete f.hours;
      }
      return;
    case 'type':
      if (single(f.types) && !f.descriptions && !f.exceptTypes) {
        notes.push(`by crime type: every type, not only ${f.types[0].toLowerCase()}`);
        delete f.types;
      }
      return;
    case 'location':
      if (single(f.locations) && !f.exceptLocations) {
        notes.push(`by location: every location, not only ${f.locations[0].toLowerCase()}`);
        delete f.locations;
      }
      return;
    default: {
      const key = PLACE_OF[d];
      const values: (number | string)[] | undefined = key ? f[key] : undefined;
      if (key && values?.length === 1) {
        notes.push(`by ${d.replace('_', ' ')}: every ${d.replace('_', ' ')}, not only ${placeLabel(key, values[0], ctx)}`);
        delete f[key];
      }
    }
  }
}

/**
 * "add district 5", "also district 5", "district 5 too" after an answer for district 3: both places, not one in
 * place of the other (as "also robberies" keeps thefts and "add 2013" keeps 2023). Each place's own figure is
 * what is asked for, so the two are set side by side (plan.versus); over a list by that kind of place, the place
 * joins the list. False when the place said is no such addition (then it replaces the thread's).
 */
function addedPlace(also: boolean, places: Piece[], work: Work, plan: QueryPlan, notes: string[]): boolean {
  if (!also || !places.length || plan.versus || plan.compareWith) return false;
  const said = mergeFilters(places, work, {});
  const keys = PLACE_KEYS.filter((k) => said[k]?.length);
  if (keys.length !== 1) return false;
  const key = keys[0];
  const own = plan.filters[key] as (number | string)[] | undefined;
  if (!own?.length || PLACE_KEYS.some((k) => k !== key && plan.filters[k])) return false;
  const fresh = (said[key] as (number | string)[]).filter((v) => !own.includes(v));
  if (!fresh.length) return false;
  const name = (vs: (number | string)[]) => `${key === 'areas' ? 'community area' : key.replace(/s$/, '')} ${vs.join(', ')}`;
  if (plan.groupBy.some((g) => PLACE_OF[g] === key)) {
    Object.assign(plan.filters, { [key]: [...own, ...fresh] });
    notes.push(`${name(fresh)} added to the list`);
  } else {
    plan.versus = { [key]: fresh };
    notes.push(`${name(fresh)} beside ${name(own)}: both, not one in place of the other`);
  }
  return true;
}

const PLACE_OF: Partial<Record<Dimension, (typeof PLACE_KEYS)[number]>> = {
  community_area: 'areas',
  district: 'districts',
  ward: 'wards',
  beat: 'beats',
  block: 'blocks',
};

function placeLabel(key: (typeof PLACE_KEYS)[number], value: number | string, ctx: ReadContext): string {
  if (key === 'areas') {
    for (const [name, n] of ctx.areas) if (n === value) return name.replace(/\b\w/g, (c) => c.toUpperCase());
    return `community area ${value}`;
  }
  return `${key.slice(0, -1)} ${value}`;
}

/**
 * The groupings this fragment pinned to one value: a place, type or location it named for the grouped
 * dimension ("what about Austin?" after a top 5 of areas), or a period it set as long as one member of
 * a time grouping ("and 2019?" after a by-year answer, "and April?" after a by-month one).
 */
function pinnedNow(plan: QueryPlan, said: (kinds: Piece['kind'][]) => Piece[], periodSet: boolean): Set<Dimension> {
  const f = plan.filters;
  const out = new Set<Dimension>();
  const places = said(['place']);
  for (const [dim, key] of Object.entries(PLACE_OF) as [Dimension, (typeof PLACE_KEYS)[number]][])
    if (places.some((p) => p.kind === 'place' && p.place === key) && f[key]?.length === 1) out.add(dim);
  if (said(['type']).length && f.types?.length === 1 && !f.category && !f.exceptTypes) out.add('type');
  if (said(['location']).length && f.locations?.length === 1 && !f.exceptLocations) out.add('location');
  if (said(['months']).length && f.months?.length === 1) out.add('month_of_year');
  if (said(['weekdays']).length && f.weekdays?.length === 1) out.add('weekday');
  if (periodSet && f.time) {
    if (isOneYear(f.time) || (yearWithin(f.time) !== undefined && !plan.groupBy.includes('month'))) out.add('year');
    if (isOneMonth(f.time)) out.add('month');
    if (isOneDay(f.time)) out.add('date');
  }
  return new Set([...out].filter((d) => plan.groupBy.includes(d)));
}
