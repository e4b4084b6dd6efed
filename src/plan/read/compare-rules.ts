// "compare with assault", "compare with district 11", "vs residences": a
// comparison that names a type, a location or a place and no period sets the
// last plan beside the same plan with that slot replaced (plan.versus,
// ../versus.ts). Period comparisons stay with the period slot (follow-up.ts).
// A later edit keeps both sides, unless it changes the slot they differ in.
import { QueryPlan, type Filters } from '../query-plan.js';
import { versusPhrase } from '../narrate-compare.js';
import { versusKeys } from '../versus.js';
import { titleCase } from './lexicon.js';
import type { ReadContext } from './context.js';
import { mergeFilters } from './filters.js';
import type { Piece } from './pieces.js';
import type { Work } from './work.js';

/** What a side may name; anything else said (a period, a grouping, a flag) is not this rule's. */
const SIDE_KINDS = new Set<Piece['kind']>(['type', 'location', 'place']);
const ALONGSIDE = new Set<Piece['kind']>(['compare', 'followUp']);
const VERSUS_KEYS = ['types', 'locations', 'areas', 'districts', 'wards', 'beats', 'blocks'] as const;
/** The grouping that lists the places of a side's kind (places only: a type beside a type keeps a list of types). */
const DIM_OF = { areas: 'community_area', districts: 'district', wards: 'ward', beats: 'beat', blocks: 'block' } as const;

/** The last plan beside the side this fragment names, or undefined when it is no such comparison. */
export function readVersus(
  work: Work,
  last: QueryPlan,
  ctx: ReadContext,
): { plan: QueryPlan; notes: string[]; phrase: string } | undefined {
  const live = work.live();
  // "that year", "the same period": the thread's own period said back (no second period)
  const saidBack = [...work.bad].filter(
    (i) =>
      !!last.filters.time && /^(?:year|month|period|time)$/.test(work.word(i) ?? '') && ['that', 'same'].includes(work.word(i - 1) ?? ''),
  );
  if (!live.some((p) => p.kind === 'compare') || work.bad.size > saidBack.length) return undefined;
  const sides = live.filter((p) => SIDE_KINDS.has(p.kind));
  if (!sides.length || sides.some((p) => p.kind === 'type' && (p.negated || p.descriptions))) return undefined;
  // "robbery arrests" beside weapons violations with an arrest: a flag the thread already has restates the scope
  // "ward 3 vs ward 4 that year": the thread's own period said back is no second period
  const t = last.filters.time;
  const restated = (p: Piece) =>
    (p.kind === 'flag' && last.filters[p.flag] === p.value) ||
    p.kind === 'samePeriod' ||
    (p.kind === 'wholeYear' &&
      !!t &&
      /-01-01$/.test(t.from) &&
      Number(t.to.slice(0, 4)) === Number(t.from.slice(0, 4)) + 1 &&
      t.to.endsWith('-01-01')) ||
    (p.kind === 'time' && !!t && p.range.from === t.from && p.range.to === t.to);
  if (live.some((p) => !SIDE_KINDS.has(p.kind) && !ALONGSIDE.has(p.kind) && !restated(p))) return undefined;
  const said = mergeFilters(sides, work, {});
  const versus: NonNullable<QueryPlan['versus']> = {};
  // "compare the 11th with district 25" in a thread about district 25: the thread's own place is the first side
  const own = (k: (typeof VERSUS_KEYS)[number], v: unknown) => JSON.stringify(last.filters[k] ?? []).includes(JSON.stringify(v));
  for (const k of VERSUS_KEYS) {
    const side = (said[k] as unknown[] | undefined)?.filter((v) => !own(k, v));
    if (side?.length) Object.assign(versus, { [k]: side });
  }
  if (!Object.keys(versus).length) return undefined;
  const plan: QueryPlan = structuredClone(last);
  const notes: string[] = [];
  // one comparison at a time: the sides replace a comparison of periods, and any other side
  if (plan.compareWith) {
    notes.push('beside the side named: no longer compared with another period');
    delete plan.compareWith;
  }
  // "ward 3 vs ward 4" names both places: the first is the thread's place, the second beside it
  for (const k of Object.keys(DIM_OF) as (keyof typeof DIM_OF)[]) {
    const side = versus[k] as unknown[] | undefined;
    if (side?.length === 2 && (said[k] as unknown[]).length === 2) {
      Object.assign(plan.filters, { [k]: [side[0]] });
      Object.assign(versus, { [k]: [side[1]] });
    }
  }
  // two places side by side are two figures: not also a list of every place of that kind, nor a ranking of them
  const sideDims = new Set<string>(
    versusKeys(versus)
      .map((k) => DIM_OF[k as keyof typeof DIM_OF])
      .filter(Boolean),
  );
  if (plan.groupBy.some((g) => sideDims.has(g))) {
    plan.groupBy = plan.groupBy.filter((g) => !sideDims.has(g));
    delete plan.top;
    delete plan.none;
    notes.push('the two sides named, not every one of them');
  }
  plan.versus = versus;
  const parsed = QueryPlan.safeParse(plan);
  if (!parsed.success) return undefined;
  for (const i of saidBack) work.bad.delete(i);
  const names = new Map([...ctx.areas].map(([name, n]) => [n, titleCase(name)]));
  return { plan: parsed.data, notes, phrase: versusPhrase(parsed.data, names) };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * After an edit of a plan with two sides: the sides go when the edit changed the slot they differ in ("what about
 * theft?") or compares periods instead ("compare with 2018").
 */
export function keepVersus(last: QueryPlan, plan: QueryPlan, notes: string[]): void {
  if (!last.versus || !plan.versus) return;
  const keys = versusKeys(last.versus) as (keyof Filters)[];
  if (plan.compareWith && !last.compareWith) {
    // "compare with 2018": one comparison at a time, the periods now
    delete plan.versus;
    notes.push('compared with the period named: no longer side by side with the other side');
    return;
  }
  if (keys.every((k) => same(last.filters[k], plan.filters[k]))) return;
  delete plan.versus;
  notes.push('no longer side by side: the edit changed what the two sides differed in');
}

/** The slots two answers in a row can differ in for "both" to set them side by side (what versus can hold). */
const BOTH_SLOTS: (keyof Filters)[][] = [['types'], ['locations'], ['areas', 'districts', 'wards', 'beats', 'blocks']];

/**
 * "both by year since 2019" after "robberies in Lakeview 2021" then "and Logan Square": the two answers before
 * differ in one slot (a place, a type, a location), so "both" is the edited plan with each side: the first
 * answer's side first, the last one's beside it. Nothing happens when they differ in more than that slot.
 */
export function bothSides(work: Work, last: QueryPlan, before: QueryPlan | null | undefined, plan: QueryPlan, notes: string[]): void {
  const both = [...work.bad].filter((i) => work.word(i) === 'both');
  // "just July, both years" after 2021 against 2020: the two periods side by side, kept (said back, nothing to add)
  if (both.length && last.compareWith && plan.compareWith) {
    for (const i of both) work.bad.delete(i);
    return;
  }
  if (!both.length || !before || plan.versus || plan.compareWith || !same(before.measure, last.measure)) return;
  const keys = [...new Set([...Object.keys(before.filters), ...Object.keys(last.filters)])] as (keyof Filters)[];
  const differ = keys.filter((k) => !same(before.filters[k], last.filters[k]));
  const slot = BOTH_SLOTS.find((s) => differ.length > 0 && differ.every((k) => s.includes(k)));
  // the edit itself must leave that slot as the last answer had it
  if (!slot || !slot.every((k) => same(plan.filters[k], last.filters[k]))) return;
  const versus: NonNullable<QueryPlan['versus']> = {};
  for (const k of slot) if (last.filters[k] !== undefined) Object.assign(versus, { [k]: last.filters[k] });
  if (!Object.keys(versus).length) return;
  for (const k of slot) {
    if (before.filters[k] === undefined) delete plan.filters[k];
    else Object.assign(plan.filters, { [k]: before.filters[k] });
  }
  plan.versus = versus;
  for (const i of both) work.bad.delete(i);
  notes.push('both: the two answers before, side by side');
}
