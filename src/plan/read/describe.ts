// A plan in words: the short phrases of the "understood" line, and a question
// the reader reads back to the same plan (the suggestion of a refusal).
import type { Dimension, Filters, QueryPlan, TimeRange } from '../query-plan.js';
import type { ReadContext } from './context.js';
import { addDays, monthOf, yearOf } from './dates.js';
import { titleCase } from './lexicon.js';
import { shownValue } from '../../core/inert-text.js';
import { entries, semanticModel } from './model.js';
import { DIMENSION_WORDS, monthName, PER_WORDS, topWords, weekdaysName } from '../words.js';

function clock(h: number): string {
  if (h === 0 || h === 24) return 'midnight';
  if (h === 12) return 'noon';
  return h < 12 ? `${h}am` : `${h - 12}pm`;
}

/** A time range as words the reader reads back ("in 2019", "from 2018 to 2020", "on 2019-07-04"). */
function rangeWords(r: Pick<TimeRange, 'from' | 'to'>): string {
  const yearAligned = r.from.endsWith('-01-01') && r.to.endsWith('-01-01');
  if (yearAligned) {
    const a = yearOf(r.from);
    const b = yearOf(r.to) - 1;
    return a === b ? `in ${a}` : `from ${a} to ${b}`;
  }
  const monthAligned = r.from.endsWith('-01') && r.to.endsWith('-01');
  const last = addDays(r.to, -1);
  if (monthAligned) {
    const a = `${monthName(monthOf(r.from))} ${yearOf(r.from)}`;
    const b = `${monthName(monthOf(last))} ${yearOf(last)}`;
    return a === b ? `in ${a}` : `from ${a} to ${b}`;
  }
  return r.from === last ? `on ${r.from}` : `from ${r.from} to ${last}`;
}

const RELATIVE = /\b(last|this|past|previous|prior|current|ytd|date|far|since|until|till|through|before|after|up)\b/i;

/** How the question said a range, resolved when it was relative ("last year (2024)"). */
function saidWords(r: TimeRange): string {
  if (!r.said) return rangeWords(r);
  if (RELATIVE.test(r.said)) return `${r.said} (${rangeWords(r).replace(/^(in|on|from) /, '')})`;
  if (/^(between|from|since|the|during)\b/i.test(r.said)) return r.said;
  return r.from === addDays(r.to, -1) ? `on ${r.said}` : `in ${r.said}`;
}

function typeWords(f: Pick<Filters, 'types' | 'exceptTypes' | 'descriptions' | 'category'>): string | undefined {
  const m = semanticModel();
  if (f.types?.length === 1 && f.descriptions?.length === 1) {
    const detail = entries(m.type_details).find(([, d]) => d.type === f.types![0] && d.description === f.descriptions![0]);
    if (detail) return detail[1].label;
  }
  const names = (f.types ?? []).map((t) => m.types[t]?.many ?? t.toLowerCase());
  if (f.exceptTypes) return `${f.category ? m.categories[f.category].label : m.all_crimes.many} other than ${names.join(' or ')}`;
  if (f.category) names.push(m.categories[f.category].label);
  if (!names.length) return undefined;
  const described =
    f.descriptions?.length && !entries(m.type_details).some(([, d]) => f.descriptions!.includes(d.description))
      ? ` described as ${f.descriptions.map(shownValue).join(' or ')}`
      : '';
  return names.join(' or ') + described;
}

function locationWords(location: string): string {
  const words = semanticModel().locations[location]?.words ?? [location.toLowerCase()];
  const w = words.find((x) => /^(on|in|at) /.test(x)) ?? `at ${words[0]}`;
  return w;
}

const areaName = (ctx: ReadContext, n: number) => titleCase([...ctx.areas].find(([, v]) => v === n)?.[0] ?? `community area ${n}`);

/** The filters other than the subject, as phrases ("in Austin", "at night"). */
function filterPhrases(f: Filters, ctx: ReadContext): string[] {
  const out: string[] = [];
  if (f.locations) out.push(...f.locations.map((l) => (f.exceptLocations ? `not ${locationWords(l)}` : locationWords(l))));
  if (f.areas) out.push(...f.areas.map((a) => `in ${areaName(ctx, a)}`));
  if (f.districts) out.push(...f.districts.map((d) => `in district ${d}`));
  if (f.wards) out.push(...f.wards.map((d) => `in ward ${d}`));
  if (f.beats) out.push(...f.beats.map((d) => `in beat ${d}`));
  if (f.blocks) out.push(...f.blocks.map((b) => `on ${b}`));
  if (f.weekend) out.push('on weekends');
  if (f.weekdays) out.push(f.weekdays.join() === '1,2,3,4,5' ? 'on weekdays' : `on ${f.weekdays.map(weekdaysName).join(' and ')}`);
  if (f.night) out.push('at night');
  if (f.hours) {
    const { from, to } = f.hours;
    out.push(
      to === 24
        ? `after ${clock(from)}`
        : from === 0
          ? `before ${clock(to)}`
          : to === from + 1
            ? `at ${clock(from)}`
            : `between ${clock(from)} and ${clock(to)}`,
    );
  }
  if (f.months) {
    const season = Object.entries(semanticModel().seasons).find(([, s]) => s.months.join() === f.months!.join());
    const of = f.time ? '' : ' of each year';
    out.push(season ? `in the ${season[0]}${of}` : `in ${f.months.map(monthName).join(' and ')}${of}`);
  }
  return out;
}

function flagPhrase(flag: 'arrest' | 'domestic', value: boolean): string {
  if (flag === 'arrest') return value ? 'with an arrest' : 'without an arrest';
  return value ? 'domestic' : 'not domestic';
}

/** The short phrases of the "understood as" line. */
export function planPhrases(plan: QueryPlan, ctx: ReadContext): string[] {
  const f = plan.filters;
  const out: string[] = [];
  const m = plan.measure;
  if (m.kind === 'share') {
    const part = m.part;
    const words = [
      ...(part.arrest !== undefined ? [flagPhrase('arrest', part.arrest)] : []),
      ...(part.domestic !== undefined ? [flagPhrase('domestic', part.domestic)] : []),
      ...(typeWords(part) ? [typeWords(part)!] : []),
      ...filterPhrases({ locations: part.locations, night: part.night, weekend: part.weekend }, ctx),
    ];
    out.push(`share ${words.join(' and ')}`);
  } else if (m.kind === 'average_per') out.push(`average per ${PER_WORDS[m.per]}`);
  else if (m.kind === 'percentile_per')
    out.push(m.p === 0.5 ? `median per ${PER_WORDS[m.per]}` : `${Math.round(m.p * 100)}th percentile per ${PER_WORDS[m.per]}`);
  else if (m.kind === 'distinct') out.push(`how many different ${DIMENSION_WORDS[m.of].many}`);
  else if (m.kind === 'average_gap') out.push(`average ${m.unit}s between consecutive incidents on the same block`);
  out.push(typeWords(f) ?? 'all crimes');
  if (f.arrest !== undefined) out.push(flagPhrase('arrest', f.arrest));
  if (f.domestic !== undefined) out.push(flagPhrase('domestic', f.domestic));
  out.push(...filterPhrases(f, ctx));
  if (f.time) out.push(saidWords(f.time));
  for (const d of plan.groupBy) out.push(DIMENSION_WORDS[d].by);
  if (plan.top) out.push(topWords(plan.top));
  if (plan.ofTotal) out.push('each as a percent of all');
  if (plan.compareWith) out.push(`compared with ${saidWords(plan.compareWith).replace(/^(in|on) /, '')}`);
  return out;
}

/** A question that reads back to the plan. */
export function planQuestion(plan: QueryPlan, ctx: ReadContext): string {
  const f = plan.filters;
  const subject = `${f.domestic === true ? 'domestic ' : ''}${typeWords(f) ?? 'crimes'}`;
  const rest = [
    ...(f.arrest !== undefined ? [flagPhrase('arrest', f.arrest)] : []),
    ...(f.domestic === false ? ['not domestic'] : []),
    ...filterPhrases(f, ctx),
    ...(f.time ? [rangeWords(f.time)] : []),
  ];
  const tail = (groups: readonly Dimension[]) =>
    [
      ...rest,
      ...groups.map((d) => DIMENSION_WORDS[d].by),
      ...(plan.compareWith ? [`compared with ${rangeWords(plan.compareWith).replace(/^(in|on) /, '')}`] : []),
    ].join(' ');
  const m = plan.measure;
  let q: string;
  if (plan.top && plan.groupBy.length === 1) {
    const d = DIMENSION_WORDS[plan.groupBy[0]];
    const which = plan.top.n === 1 ? `which ${d.one}` : `which ${plan.top.n} ${d.many}`;
    const most = plan.top.order === 'desc' ? 'the most' : 'the fewest';
    if (m.kind === 'count') q = `${which} had ${most} ${subject} ${tail([])}`;
    else q = `${measureWords(plan, subject)} ${tail([])}, ${which} had ${plan.top.order === 'desc' ? 'the highest' : 'the lowest'}`;
  } else if ((plan.order === 'measure' || plan.order === 'measure_asc') && plan.groupBy.length === 1) {
    // a ranking with no number: "which districts had the most thefts", "…, which crime types had the highest"
    const which = `which ${DIMENSION_WORDS[plan.groupBy[0]].many}`;
    const most = plan.order === 'measure' ? 'most' : 'fewest';
    q =
      m.kind === 'count'
        ? `${which} had the ${most} ${subject} ${tail([])}`
        : `${measureWords(plan, subject)} ${tail([])}, ${which} had the ${plan.order === 'measure' ? 'highest' : 'lowest'}`;
  } else {
    q =
      m.kind === 'count'
        ? `how many ${subject} were reported ${tail(plan.groupBy)}`
        : `${measureWords(plan, subject)} ${tail(plan.groupBy)}`;
  }
  return `${q.replace(/\s+/g, ' ').replace(/\s+,/g, ',').trim()}?`;
}

function measureWords(plan: QueryPlan, subject: string): string {
  const m = plan.measure;
  switch (m.kind) {
    case 'share': {
      const p = m.part;
      const parts = [
        ...(p.arrest !== undefined ? [p.arrest ? 'led to an arrest' : 'were without an arrest'] : []),
        ...(p.domestic !== undefined ? [p.domestic ? 'were domestic' : 'were not domestic'] : []),
        ...(typeWords(p) ? [`were ${typeWords(p)}`] : []),
        ...(p.locations ?? []).map((l) => `happened ${locationWords(l)}`),
        ...(p.night ? ['happened at night'] : []),
        ...(p.weekend ? ['happened on weekends'] : []),
      ];
      return `what share of ${subject} ${parts.join(' and ')}`;
    }
    case 'average_per':
      return `what is the average number of ${subject} per ${PER_WORDS[m.per]}`;
    case 'percentile_per':
      return m.p === 0.5
        ? `what is the median number of ${subject} per ${PER_WORDS[m.per]}`
        : `what is the ${Math.round(m.p * 100)}th percentile of ${subject} per ${PER_WORDS[m.per]}`;
    case 'distinct':
      return `how many different ${DIMENSION_WORDS[m.of].many} had ${subject}`;
    case 'average_gap':
      return `what is the average time in ${m.unit}s between consecutive ${subject} on the same block`;
    default:
      return `how many ${subject}`;
  }
}

/** The question a plan answers, in full words and capitalised: what memory, feedback and verified pairs keep. */
export function resolvedQuestion(plan: QueryPlan, ctx: ReadContext): string {
  const q = planQuestion(plan, ctx);
  return q.charAt(0).toUpperCase() + q.slice(1);
}
