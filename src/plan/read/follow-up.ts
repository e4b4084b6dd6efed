// A follow-up edits the thread's last plan: a period replaces the period, a
// type the types, a place the places; "only arrests" adds a filter; "by month
// instead" replaces the grouping ("also by district" adds one); "top 10
// instead" sets the ranking; "compare with 2018" sets the comparison.
import { QueryPlan, type Dimension, type Filters } from '../query-plan.js';
import { DISTINCT_OF, PER_OF, termsOf } from './assemble.js';
import { mergeFilters, sharePartPieces } from './filters.js';
import { isSubject, type Piece } from './pieces.js';
import type { Work } from './work.js';

/** A verb right after the measure, with no subject between: "how many were ...", "what percentage was ...". */
const BACK_VERBS = new Set(['were', 'was', 'are', 'is']);

/** Follow-up words that mark an edit wherever they stand ("top 10 instead", "also by district", "how many of them"). */
const EDIT_ANYWHERE = new Set(['instead', 'also', 'as well', 'too', 'again', 'rather', 'ones', 'them', 'those']);

/**
 * Whether the text is a fragment that edits the thread's last plan, rather than a question complete on
 * its own (the one follow-up rule: see readInThread). A fragment starts with a follow-up word ("and in
 * 2021?", "only arrests", "what about burglaries?"), says "instead"/"also"/"them" anywhere, or names no
 * subject of its own ("by month", "in 2020", "compare with 2018", "which district had the most?"). A text
 * with a subject (a crime type, "crimes", "arrests"; crime types as the grouping; an arrest rate) and
 * anything more is complete: "Compare assaults in 2019 and 2020", "Top 5 crime types in 2018", "Arrest rate
 * by district in 2021", "thefts in 2020". A subject alone ("burglaries?") swaps the subject.
 */
export function isFragment(work: Work): boolean {
  const live = work.live();
  if (!live.length) return false;
  if (live.some((p) => p.kind === 'followUp' && (p.start === 0 || EDIT_ANYWHERE.has(p.text.toLowerCase())))) return true;
  // "how many were arrests?", "what share was domestic?": the measure points back at the last answer's subject
  if (live.some((p) => p.kind === 'measure' && BACK_VERBS.has(work.word(p.end) ?? ''))) return true;
  // a subject: what is counted ("thefts", "crimes", "arrests"), crime types as the grouping, an arrest rate
  const subjectLike = (p: Piece) =>
    isSubject(p) || (p.kind === 'dim' && p.dim === 'type') || (p.kind === 'measure' && p.arrestRate === true);
  const pureSubject = (p: Piece) =>
    p.kind === 'type' || p.kind === 'category' || p.kind === 'all' || (p.kind === 'flag' && p.noun === true);
  // complete: a subject and something more than subjects ("burglaries and robberies?" only swaps the subject)
  return !live.some((s) => subjectLike(s) && live.some((q) => q !== s && q.kind !== 'followUp' && !pureSubject(q)));
}

const PLACE_KEYS = ['areas', 'districts', 'wards', 'beats', 'blocks'] as const;

export function editPlan(work: Work, last: QueryPlan): { plan?: QueryPlan; terms: string[] } {
  const plan: QueryPlan = structuredClone(last);
  const live = work.live();
  const also = live.some((p) => p.kind === 'followUp' && p.also);
  let dims = work.of('dim');

  // the measure
  const cues = work.of('measure');
  const share = cues.find((c) => c.arrestRate) ?? cues.find((c) => c.measure === 'share');
  const pending = cues.find((c) => c.measure === 'average' || c.measure === 'median' || c.measure === 'percentile');
  const distinct = cues.find((c) => c.measure === 'distinct');
  let part: Piece[] = [];
  if (share) {
    part = share.arrestRate ? [] : sharePartPieces(share, live, work, isSubject);
    const f = mergeFilters(part, work, share.arrestRate ? { arrest: true } : {});
    if (Object.keys(f).length) plan.measure = { kind: 'share', part: f };
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
  } else if (cues.some((c) => c.measure === 'count')) {
    plan.measure = { kind: 'count' };
  } else if ('per' in plan.measure) {
    // "per block instead" after an average
    const perPiece = dims.find((d) => d.per && PER_OF[d.dim]);
    if (perPiece) {
      plan.measure = { ...plan.measure, per: PER_OF[perPiece.dim]! };
      dims = dims.filter((d) => d !== perPiece);
    }
  }

  // filters: each kind said replaces the same kind of the last plan
  const f: Filters = plan.filters;
  const pieces = live.filter((p) => !part.includes(p));
  const said = (kinds: Piece['kind'][]) => pieces.filter((p) => kinds.includes(p.kind));
  const replace = (kinds: Piece['kind'][], keys: (keyof Filters)[]) => {
    const ps = said(kinds);
    if (!ps.length) return;
    for (const k of keys) delete f[k];
    mergeFilters(ps, work, f);
  };
  replace(['type', 'category'], ['types', 'category', 'descriptions']);
  if (!said(['type', 'category']).length && said(['all']).length && !said(['flag']).some((p) => p.kind === 'flag' && p.noun)) {
    delete f.types;
    delete f.category;
    delete f.descriptions;
  }
  mergeFilters(
    said(['flag']).map((p) => ({ ...p })),
    work,
    withoutFlags(f, said(['flag'])),
  );
  replace(['location'], ['locations']);
  replace(['place'], [...PLACE_KEYS]);
  if (said(['allPlaces']).length) for (const k of PLACE_KEYS) delete f[k];
  replace(['night', 'hours'], ['night', 'hours']);
  replace(['weekend', 'weekdays'], ['weekend', 'weekdays']);
  replace(['months'], ['months']);

  // time and comparison
  const times = work.of('time');
  const cmp = work.of('compare');
  if (said(['allTime']).length) {
    delete f.time;
    delete plan.compareWith;
  }
  if (cmp.length && times.length === 1) plan.compareWith = times[0].range;
  else if (cmp.length && times.length === 2) {
    const [a, b] = times;
    const between = cmp.some((c) => c.start >= a.end && c.end <= b.start);
    const [t, w] = between ? [a, b] : a.range.from > b.range.from ? [a, b] : [b, a];
    f.time = t.range;
    plan.compareWith = w.range;
  } else if (cmp.length) {
    for (const c of cmp) work.drop(c, 'compare with what? (a period: "compare with 2018")');
  } else if (times.length === 1) {
    f.time = times[0].range;
  } else if (times.length > 1) {
    for (const p of times.slice(1)) work.drop(p, 'two periods without a comparison');
  }

  // groupings and ranking
  const before = plan.groupBy.join();
  const fresh = [...new Set(dims.map((d) => d.dim))] as Dimension[];
  if (fresh.length) plan.groupBy = (also ? [...new Set([...plan.groupBy, ...fresh])] : fresh).slice(0, 3);
  if (plan.groupBy.length > 2) {
    for (const d of dims) work.drop(d, 'more than two groupings');
    plan.groupBy = last.groupBy;
  }
  const numbers = work.of('number');
  const ranks = work.of('rank').filter((r) => !r.orderOnly);
  if (numbers.length || ranks.length) {
    const order = ranks[0]?.order ?? plan.top?.order ?? 'desc';
    const singular = dims.some((d) => !d.by && d.plural === false);
    if (numbers.length) plan.top = { n: numbers[0].n, order };
    else if (plan.top) plan.top = { ...plan.top, order };
    else if (singular) plan.top = { n: 1, order };
    else if (order === 'asc') for (const r of ranks) work.drop(r, 'the fewest needs a number');
  } else if (plan.groupBy.join() !== before) {
    delete plan.top;
  }
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
  if (plan.top && !plan.groupBy.length) {
    for (const p of [...numbers, ...ranks]) work.drop(p, 'a ranking needs a grouping ("top 5 districts")');
    delete plan.top;
  }
  for (const p of work.of('change')) if (!plan.groupBy.length && !plan.compareWith) work.drop(p, 'a change needs a time axis');
  for (const p of work.of('grouping')) if (!plan.groupBy.length) work.drop(p, 'a distribution needs a grouping');

  const parsed = QueryPlan.safeParse(plan);
  if (!parsed.success) {
    work.problems.push(`not a plan: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    return { terms: [] };
  }
  const calendar = dims.some((d) => d.calendar) && parsed.data.groupBy.includes('date') ? ['calendar_day'] : [];
  return { plan: parsed.data, terms: termsOf(parsed.data, calendar) };
}

/** The filters with the flags about to be said removed (a flag said again replaces the last value). */
function withoutFlags(f: Filters, flags: Piece[]): Filters {
  for (const p of flags) if (p.kind === 'flag') delete f[p.flag];
  return f;
}
