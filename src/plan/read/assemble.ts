// Pieces -> a QueryPlan for a question on its own: the measure, what it is
// taken per, the groupings, the ranking, the filters, the comparison. A piece
// that does not fit is dropped with a reason, so the caller can refuse and
// still suggest the question it could read.
import { QueryPlan, type Dimension, type Measure, type PerGroup, type TimeRange } from '../query-plan.js';
import { mergeFilters, PART_KINDS, sharePartPieces } from './filters.js';
import { joinPeriods } from './periods.js';
import { isSubject, type Piece } from './pieces.js';
import { applySort } from './sort-edit.js';
import type { Work } from './work.js';

export const PER_OF: Partial<Record<Dimension, PerGroup>> = {
  date: 'day',
  month: 'month',
  year: 'year',
  block: 'block',
  community_area: 'community_area',
  district: 'district',
  ward: 'ward',
  beat: 'beat',
};
export const DISTINCT_OF = new Set<Dimension>(['block', 'beat', 'community_area', 'district', 'ward', 'type', 'location']);
const TIME_AXES = new Set<Dimension>(['year', 'month', 'date', 'month_of_year', 'weekday', 'hour', 'day_of_year']);
const PLACE_DIMS = { areas: 'community_area', districts: 'district', wards: 'ward', beats: 'beat' } as const;

type Dim = Extract<Piece, { kind: 'dim' }>;
type Rank = Extract<Piece, { kind: 'rank' }>;
type DistinctOf = Extract<Measure, { kind: 'distinct' }>['of'];

export interface Assembled {
  /** the plan of the pieces that could be placed (also when some could not) */
  plan?: QueryPlan;
  terms: string[];
}

export function assemble(work: Work): Assembled {
  const terms = new Set<string>();
  // "drop the year filter", "the whole year", "same months": edits of an earlier answer, not a question
  for (const p of work.live())
    if (p.kind === 'remove' || p.kind === 'wholeYear' || p.kind === 'samePeriod')
      work.drop(p, `"${p.text}" edits an earlier answer: ask a whole question`);
  const measure = readMeasure(work);
  let groups = readGroups(work, measure);
  const top = readRanking(work, groups);
  groups = top.groups;

  // filters, and the part of a share
  let part: Piece[] = [];
  if (measure.value.kind === 'share' && measure.cue && !measure.arrestRate)
    part = sharePartPieces(measure.cue, work.live(), work, isSubject);
  const filterPieces = work
    .live()
    .filter((p) => PART_KINDS.has(p.kind) || p.kind === 'months' || p.kind === 'weekdays' || p.kind === 'hours' || p.kind === 'place');
  const filters = mergeFilters(
    filterPieces.filter((p) => !part.includes(p)),
    work,
  );
  let m: Measure;
  const v = measure.value;
  if (v.kind === 'pending') throw new Error('unreachable: readGroups resolves averages');
  if (v.kind !== 'share') m = v;
  else {
    const f = mergeFilters(part, work, measure.arrestRate ? { arrest: true } : {});
    if (Object.keys(f).length === 0) {
      work.drop(measure.cue!, 'a share of what? (say what the share is of: "that led to an arrest", "were domestic")');
      m = { kind: 'count' };
    } else {
      m = { kind: 'share', part: f };
    }
  }

  // time and comparison
  const time = readTime(work, groups);
  groups = time.groups;
  if (!groups.length && !top.top) groups = listed(work);

  if (groups.includes('type') && filters.types?.length === 1 && !filters.exceptTypes) {
    for (const d of work.of('dim'))
      if (d.dim === 'type')
        work.drop(d, `kinds of ${filters.types[0].toLowerCase()} (its descriptions) are not something the plan can group by`);
    groups = groups.filter((g) => g !== 'type');
    delete top.top;
  }
  for (const p of work.of('change'))
    if (!groups.some((g) => TIME_AXES.has(g)) && !time.compareWith)
      work.drop(p, 'a change can be shown along a time axis or against a second period');
  for (const p of work.of('grouping')) if (!groups.length) work.drop(p, 'a distribution needs a grouping ("by month", "by district")');
  if (work.of('dim').some((d) => d.calendar && groups.includes('date'))) terms.add('calendar_day');

  const live = work.live();
  const asks = live.some((p) => isSubject(p) || p.kind === 'measure' || p.kind === 'rank' || p.kind === 'compare');
  const hasContent =
    asks &&
    live.some((p) => (isSubject(p) && p.kind !== 'measure') || p.kind === 'time' || p.kind === 'dim' || FILTER_OR_PLACE.has(p.kind));
  if (!hasContent) {
    work.problems.push('nothing to count');
    return { terms: [] };
  }
  const none = work.of('none');
  if (none.length && (!groups.length || top.top || time.compareWith)) {
    for (const p of none)
      work.drop(
        p,
        groups.length
          ? 'the groups with none, and a ranking or a comparison at once'
          : 'which of what had none? ("which community areas had no homicides")',
      );
  }
  const candidate = {
    ...(none.length && !work.isDropped(none[0]) ? { none: true as const } : {}),
    measure: m,
    filters: { ...filters, ...(time.time ? { time: time.time } : {}) },
    groupBy: groups,
    ...(top.top ? { top: top.top } : {}),
    ...(top.ranked && groups.length && !top.top ? { order: 'measure' as const } : {}),
    ...(time.compareWith ? { compareWith: time.compareWith } : {}),
  };
  const parsed = QueryPlan.safeParse(candidate);
  if (!parsed.success) {
    work.problems.push(`not a plan: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    return { terms: [] };
  }
  // "…, fewest first", "… alphabetically": the order asked of the groups
  applySort(work, parsed.data);
  for (const t of termsOf(parsed.data)) terms.add(t);
  return { plan: parsed.data, terms: order(terms) };
}

const FILTER_OR_PLACE = new Set<Piece['kind']>([
  'type',
  'category',
  'location',
  'flag',
  'months',
  'weekdays',
  'weekend',
  'hours',
  'night',
  'place',
]);
const TERM_ORDER = ['night', 'per_block_average', 'calendar_day', 'violent_crime', 'weekend'];
const order = (terms: Set<string>) => TERM_ORDER.filter((t) => terms.has(t));

/** The ambiguous glossary terms a plan uses. */
export function termsOf(plan: QueryPlan, extra: string[] = []): string[] {
  const t = new Set(extra);
  const f = plan.filters;
  const part = plan.measure.kind === 'share' ? plan.measure.part : {};
  if (f.night || part.night) t.add('night');
  if (f.weekend || part.weekend) t.add('weekend');
  if (f.category === 'violent' || part.category === 'violent') t.add('violent_crime');
  if (plan.measure.kind === 'average_per' && plan.measure.per === 'block') t.add('per_block_average');
  return order(t);
}

interface MeasureReading {
  value: Measure | { kind: 'share' } | { kind: 'pending'; of: 'average' | 'percentile'; p?: number };
  cue?: Piece;
  arrestRate?: boolean;
  /** the dimension a distinct count is of */
  distinctOf?: Dim;
}

/** share > median/percentile > average > distinct > count. */
function readMeasure(work: Work): MeasureReading {
  const cues = work.of('measure');
  const share = cues.filter((c) => c.measure === 'share');
  const pct = cues.filter((c) => c.measure === 'median' || c.measure === 'percentile');
  const avg = cues.filter((c) => c.measure === 'average');
  const dist = cues.filter((c) => c.measure === 'distinct');
  const count = cues.find((c) => c.measure === 'count');
  // "how many thefts and how many burglaries": two questions
  for (const c of cues.filter((x) => x.measure === 'count' && /^how (many|much)/i.test(x.text)).slice(1))
    work.drop(c, 'two questions at once');
  // "crimes and arrests": two things counted
  for (const f of work.of('flag').filter((x) => x.noun)) {
    const joined =
      ['and', 'or', 'vs', 'versus'].includes(work.word(f.start - 1) ?? '') ||
      ['and', 'or', 'vs', 'versus'].includes(work.word(f.end) ?? '');
    if (
      joined &&
      work
        .live()
        .some((p) => (p.kind === 'all' || p.kind === 'type' || p.kind === 'category') && (p.end === f.start - 1 || p.start === f.end + 1))
    )
      work.drop(f, 'two things counted at once');
  }
  if (share.length) {
    for (const c of [...pct, ...avg]) work.drop(c, 'a share and an average at once');
    const cue = share.find((c) => c.arrestRate) ?? share[0];
    return { value: { kind: 'share' }, cue, arrestRate: cue.arrestRate };
  }
  if (pct.length) {
    for (const c of avg) work.drop(c, 'an average and a median at once');
    const cue = pct.find((c) => c.p !== undefined);
    if (!cue) {
      for (const c of pct) work.drop(c, 'which percentile? ("the 90th percentile")');
      return { value: { kind: 'count' } };
    }
    return { value: { kind: 'pending', of: 'percentile', p: cue.p }, cue };
  }
  if (avg.length) return { value: { kind: 'pending', of: 'average' }, cue: avg[0] };
  const dims = work.of('dim');
  for (const cue of dist) {
    // "how many different blocks": a distinct count needs "how many"/"number of"
    const counted = count !== undefined || /^(how many|number of)/i.test(cue.text);
    const next = dims.find((d) => d.start === cue.end);
    if (counted && next && !next.by) {
      if (!DISTINCT_OF.has(next.dim)) {
        work.drop(next, `a count of different ${next.text} is not possible`);
        return { value: { kind: 'count' } };
      }
      return { value: { kind: 'distinct', of: next.dim as DistinctOf }, cue, distinctOf: next };
    }
  }
  // "how many blocks had burglaries"
  if (count && /^(how many|number of)$/i.test(count.text.toLowerCase())) {
    const next = dims.find((d) => d.start === count.end && !d.by && d.plural === true);
    if (next && DISTINCT_OF.has(next.dim)) return { value: { kind: 'distinct', of: next.dim as DistinctOf }, cue: count, distinctOf: next };
    if (next) work.drop(next, `a count of ${next.text} is not possible`);
  }
  return { value: { kind: 'count' } };
}

/** The groupings; an average or percentile takes its "per" group first, a distinct count its dimension. */
function readGroups(work: Work, measure: MeasureReading): Dimension[] {
  let dims = work.of('dim');
  if (dims.some((d) => !d.weak && TIME_AXES.has(d.dim))) dims = dims.filter((d) => !d.weak);
  if (measure.distinctOf) dims = dims.filter((d) => d !== measure.distinctOf);
  const v = measure.value;
  if (v.kind === 'pending') {
    const per = dims.find((d) => d.per && PER_OF[d.dim]) ?? dims.find((d) => PER_OF[d.dim] && !TIME_AXES.has(d.dim));
    if (!per) {
      work.drop(measure.cue!, `${v.of === 'average' ? 'an average' : 'a percentile'} per what? ("per day", "per block")`);
      measure.value = { kind: 'count' };
    } else {
      measure.value =
        v.of === 'average' ? { kind: 'average_per', per: PER_OF[per.dim]! } : { kind: 'percentile_per', per: PER_OF[per.dim]!, p: v.p! };
      dims = dims.filter((d) => d !== per);
    }
  }
  // a grouping noun needs a question around it: "which districts", "top 5 blocks", "districts with the most"
  const context = work.live().some((p) => p.kind === 'rank' || p.kind === 'grouping' || p.kind === 'none');
  for (const d of dims) {
    if (d.by || d.text.toLowerCase() === 'where' || context || measure.value.kind === 'distinct') continue;
    const asked = work.scan.tokens.slice(0, d.start).some((x) => x.t === 'which' || x.t === 'what');
    // "by month and district"
    const coordinated = work.word(d.start - 1) === 'and' && dims.some((e) => e.by && e.end === d.start - 1);
    if (!asked && !coordinated) work.drop(d, `by ${d.text}? (say "by ${d.text}" or "which ${d.text}")`);
  }
  dims = dims.filter((d) => !work.isDropped(d));
  const groups: Dimension[] = [];
  for (const d of dims) {
    if (groups.includes(d.dim)) continue;
    if (groups.length === 2) {
      work.drop(d, 'more than two groupings');
      continue;
    }
    groups.push(d.dim);
  }
  return groups;
}

/** most/least and a number: top N; a singular "which district" is the top 1; no number and no singular: no limit. */
function readRanking(
  work: Work,
  groupsIn: Dimension[],
): { groups: Dimension[]; top?: { n: number; order: 'desc' | 'asc' }; ranked?: boolean } {
  let groups = groupsIn;
  const ranks = work.of('rank');
  const numbers = work.of('number');
  const orderOnly = ranks.filter((r) => r.orderOnly);
  let real: Rank[] = ranks.filter((r) => !r.orderOnly);
  for (const r of real.slice(1)) if (r.order !== real[0].order) work.drop(r, 'both the most and the fewest');
  real = real.filter((r) => !work.isDropped(r));
  for (const n of numbers.slice(1)) if (n.n !== numbers[0].n) work.drop(n, 'two numbers for the ranking');
  let dimPiece: Dim | undefined = work.of('dim').find((d) => d.dim === groups[0]);
  if (real.length && groups.length === 0) {
    const all = work.of('all')[0];
    const typed = work.live().some((p) => (p.kind === 'type' && !p.negated) || p.kind === 'category');
    if (real.some((r) => r.common) && !typed) {
      // "the most common crimes": ranked by crime type
      groups = ['type'];
      const plural = all ? /s$/.test(all.text.trim()) : numbers.length ? true : undefined;
      dimPiece = { kind: 'dim', dim: 'type', by: false, per: false, plural, start: 0, end: 0, text: '' };
    } else {
      for (const r of real) work.drop(r, 'the most of what? (say by what: "which district", "which community areas")');
      real = [];
    }
  }
  if (real.length && groups.length === 2) {
    for (const r of real) work.drop(r, 'a ranking over two groupings');
    real = [];
  }
  for (const r of orderOnly) if (!groups.length) work.drop(r);
  const n = work.of('number')[0];
  if (!real.length) {
    if (n) work.drop(n, 'a number without a ranking');
    return { groups, ranked: groups.length > 0 && orderOnly.some((r) => !work.isDropped(r)) };
  }
  const order = real[0].order;
  if (n) return { groups, top: { n: n.n, order }, ranked: true };
  if (dimPiece && !dimPiece.by && dimPiece.plural === false) return { groups, top: { n: 1, order }, ranked: true };
  // "which areas had the fewest": the lowest, with every group tied with it (over every place: zeros too)
  if (order === 'asc') return { groups, top: { n: 1, order }, ranked: true };
  return { groups, ranked: true };
}

/**
 * "thefts and burglaries", "in Austin and Englewood": each of them, side by side (grouped by
 * the type or the place), rather than one total ("thefts or burglaries" is one total).
 */
function listed(work: Work): Dimension[] {
  const groups: Dimension[] = [];
  const joined = (ps: Piece[]) => {
    for (let k = 1; k < ps.length; k++) {
      const [a, b] = [ps[k - 1], ps[k]];
      const between = a.start === b.start ? a.text.toLowerCase().split(/\s+/) : work.scan.tokens.slice(a.end, b.start).map((x) => x.t);
      if (between.includes('and')) return true;
    }
    return false;
  };
  const types = work.of('type').filter((p) => !p.descriptions && !p.negated);
  if (new Set(types.flatMap((p) => p.types)).size >= 2 && joined(types)) groups.push('type');
  for (const [kind, dim] of Object.entries(PLACE_DIMS)) {
    const places = work.of('place').filter((p) => p.place === kind);
    if (places.length >= 2 && joined(places) && groups.length < 2) groups.push(dim);
  }
  return groups;
}

/** One period, or two with a comparison; comparing places or types groups by them. */
function readTime(work: Work, groupsIn: Dimension[]): { groups: Dimension[]; time?: TimeRange; compareWith?: TimeRange } {
  const groups = [...groupsIn];
  const times: Extract<Piece, { kind: 'time' }>[] = [];
  for (const p of work.of('time')) {
    // "next year" on its own has no period to count from (the data's end would be the future); nor has
    // "the 3 years before" (before what?)
    if (p.step && (p.step.by > 0 || p.step.adjoining)) {
      work.drop(p, `"${p.text}" needs a period to count from`);
      continue;
    }
    if (times.some((q) => q.range.from === p.range.from && q.range.to === p.range.to)) continue;
    times.push(p);
  }
  const cmp = work.of('compare');
  if (cmp.length) {
    const several =
      new Set(work.of('type').flatMap((p) => (p.negated ? [] : p.types))).size >= 2 ||
      Object.keys(PLACE_DIMS).some((k) => work.of('place').filter((p) => p.place === k).length >= 2);
    if (times.length === 2 && several) {
      // "thefts in 2019 vs burglaries in 2018": two things compared at once
      for (const c of cmp) work.drop(c, 'a comparison of two periods and of two types or places at once');
      return { groups, time: times[0].range };
    }
    if (times.length === 2) {
      const [a, b] = times;
      const between = cmp.some((c) => c.start >= a.end && c.end <= b.start);
      const [t, w] = between ? [a, b] : a.range.from > b.range.from ? [a, b] : [b, a];
      return { groups, time: t.range, compareWith: w.range };
    }
    const counts: [Dimension, number][] = [['type', new Set(work.of('type').flatMap((p) => (p.negated ? [] : p.types))).size]];
    for (const [kind, dim] of Object.entries(PLACE_DIMS)) counts.push([dim, work.of('place').filter((p) => p.place === kind).length]);
    const multi = counts.find(([, c]) => c >= 2);
    if (multi && times.length <= 1) {
      if (!groups.includes(multi[0])) {
        if (groups.length < 2) groups.push(multi[0]);
        else for (const c of cmp) work.drop(c, 'a comparison over more than two groupings');
      }
      return { groups, time: times[0]?.range };
    }
    for (const c of cmp) work.drop(c, 'compare with what? (two periods: "2019 vs 2018")');
  }
  if (times.length > 1) {
    // "in 2024 and 2025": a set of periods that run on is one stretch
    const joined = joinPeriods(times.map((p) => p.range));
    if (joined) return { groups, time: joined };
    for (const p of times.slice(1))
      work.drop(p, 'two periods with a gap between them (say "from 2018 to 2020", or compare them: "2019 compared with 2017")');
  }
  return { groups, time: times[0]?.range };
}
