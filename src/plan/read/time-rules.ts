// Dates and periods: ISO and US dates, "july 4th, 2019", years, "march 2021",
// ranges ("between march and june 2021", "from 2018 to 2020"), since/before/
// until, and relative periods resolved against the data's latest date.
import type { TimeRange } from '../query-plan.js';
import type { PeriodStep } from './pieces.js';
import { addDays, addMonths, dayRange, isValidDay, isoWeekday, monthRange, monthStart, yearOf, yearRange } from './dates.js';
import { semanticModel } from './model.js';
import type { Meaning } from './pieces.js';
import { smallNumber, type Rule, type RuleInput, type RuleMatch } from './rule.js';

type Grain = 'day' | 'month' | 'year' | 'relative';
interface Full {
  from: string;
  to: string;
  len: number;
  grain: Grain;
  /** "the year before", "next year": a step from a reference period (the thread's, in an edit; else the data's end) */
  step?: PeriodStep;
}
/** a month or a month and day without its year ("march", "march 3") */
interface Partial {
  month: number;
  day?: number;
  len: number;
  partial: true;
}
type Period = Full | Partial;

let monthWords: Map<string, number> | undefined;
function monthNumber(word: string | undefined): number | undefined {
  if (!monthWords) {
    monthWords = new Map();
    for (const [n, words] of Object.entries(semanticModel().months)) for (const w of words) monthWords.set(w, Number(n));
  }
  return word === undefined ? undefined : monthWords.get(word);
}
const yearNumber = (w: string | undefined) => (w && /^(19|20)\d\d$/.test(w) ? Number(w) : undefined);
function dayNumber(w: string | undefined): number | undefined {
  const m = w ? /^(\d{1,2})(st|nd|rd|th)?$/.exec(w) : null;
  const d = m ? Number(m[1]) : 0;
  return d >= 1 && d <= 31 ? d : undefined;
}

const day = (y: number, m: number, d: number, len: number): Full | undefined =>
  isValidDay(y, m, d) ? { ...dayRange(y, m, d), len, grain: 'day' } : undefined;

/** A period written at word i: a day, a month of a year, a year, a relative period, or a month without year. */
function periodAt(x: RuleInput, i: number): Period | undefined {
  const { t } = x;
  const w = t[i];
  if (w === undefined) return undefined;
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(w);
  if (m) return day(Number(m[1]), Number(m[2]), Number(m[3]), 1);
  m = /^(\d{4})-(\d{2})$/.exec(w);
  if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12) return { ...monthRange(Number(m[1]), Number(m[2])), len: 1, grain: 'month' };
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(w);
  if (m) return day(Number(m[3]), Number(m[1]), Number(m[2]), 1);
  m = /^(\d{1,2})\/(\d{4})$/.exec(w);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= 12) return { ...monthRange(Number(m[2]), Number(m[1])), len: 1, grain: 'month' };
  const month = monthNumber(w);
  if (month !== undefined) {
    const d = dayNumber(t[i + 1]);
    if (d !== undefined) {
      const y = yearNumber(t[i + 2]) ?? (t[i + 2] === 'of' ? yearNumber(t[i + 3]) : undefined);
      if (y !== undefined) return day(y, month, d, t[i + 2] === 'of' ? 4 : 3);
      return { month, day: d, len: 2, partial: true };
    }
    if (t[i + 1] === 'of' && yearNumber(t[i + 2]) !== undefined)
      return { ...monthRange(yearNumber(t[i + 2])!, month), len: 3, grain: 'month' };
    if (yearNumber(t[i + 1]) !== undefined) return { ...monthRange(yearNumber(t[i + 1])!, month), len: 2, grain: 'month' };
    return { month, len: 1, partial: true };
  }
  const d = dayNumber(w);
  if (d !== undefined) {
    const j = t[i + 1] === 'of' ? i + 2 : i + 1;
    const mo = monthNumber(t[j]);
    if (mo !== undefined) {
      const y = yearNumber(t[j + 1]);
      if (y !== undefined) return day(y, mo, d, j + 2 - i);
      return { month: mo, day: d, len: j + 1 - i, partial: true };
    }
  }
  if (w === 'the' && t[i + 1] === 'year' && yearNumber(t[i + 2]) !== undefined)
    return { ...yearRange(yearNumber(t[i + 2])!), len: 3, grain: 'year' };
  if (w === 'year' && yearNumber(t[i + 1]) !== undefined) return { ...yearRange(yearNumber(t[i + 1])!), len: 2, grain: 'year' };
  const y = yearNumber(w);
  if (y !== undefined) return { ...yearRange(y), len: 1, grain: 'year' };
  return relativeAt(x, i);
}

const isFull = (p: Period | undefined): p is Full => p !== undefined && !('partial' in p);

const UNITS: Record<string, 'day' | 'week' | 'month' | 'year'> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
};

/** Relative periods, against the data's latest date (not today: the data lags). */
const RELATIVE_STARTS = new Set([
  'last',
  'previous',
  'prior',
  'the',
  'this',
  'so',
  'current',
  'year',
  'ytd',
  'month',
  'within',
  'over',
  'past',
  'a',
  'one',
  'next',
]);

/** Steps from a period: in an edit they move the thread's period ("the year before" a thread about 2020 is 2019). */
const YEAR_BEFORE = [
  ['last', 'year'],
  ['previous', 'year'],
  ['prior', 'year'],
  ['the', 'previous', 'year'],
  ['the', 'prior', 'year'],
  ['the', 'year', 'before'],
  ['the', 'year', 'prior'],
  ['a', 'year', 'before'],
  ['a', 'year', 'earlier'],
  ['one', 'year', 'earlier'],
  ['a', 'year', 'ago'],
];
const YEAR_AFTER = [
  ['next', 'year'],
  ['the', 'next', 'year'],
  ['the', 'following', 'year'],
  ['the', 'year', 'after'],
  ['a', 'year', 'later'],
  ['one', 'year', 'later'],
];
const MONTH_BEFORE = [
  ['the', 'month', 'before'],
  ['the', 'previous', 'month'],
  ['the', 'prior', 'month'],
  ['a', 'month', 'earlier'],
];
const MONTH_AFTER = [
  ['next', 'month'],
  ['the', 'next', 'month'],
  ['the', 'following', 'month'],
  ['the', 'month', 'after'],
  ['a', 'month', 'later'],
];

/**
 * "the 3 years before that", "2 years earlier", "the 6 months prior": that many whole years (months) right
 * before the reference period; on its own, before the latest year (month).
 */
function adjoiningAt(x: RuleInput, i: number): Full | undefined {
  const { t, ctx } = x;
  let j = t[i] === 'the' ? i + 1 : i;
  const n = smallNumber(t[j]);
  const unit = { years: 'year', months: 'month' }[t[j + 1] ?? ''] as 'year' | 'month' | undefined;
  if (n === undefined || n < 2 || n > 50 || /^(19|20)\d\d$/.test(t[j] ?? '') || !unit) return undefined;
  if (!['before', 'prior', 'earlier'].includes(t[j + 2] ?? '')) return undefined;
  j += 3;
  if (['that', 'it', 'this', 'then'].includes(t[j] ?? '')) j++;
  const latest = ctx.latestDate;
  const endOf = unit === 'year' ? yearRange(yearOf(latest)).from : monthStart(latest);
  const months = unit === 'year' ? 12 * n : n;
  return { from: addMonths(endOf, -months), to: endOf, len: j - i, grain: 'relative', step: { unit, by: -n, adjoining: true } };
}

function relativeAt(x: RuleInput, i: number): Full | undefined {
  const { t, ctx } = x;
  const adjoining = adjoiningAt(x, i);
  if (adjoining) return adjoining;
  if (!RELATIVE_STARTS.has(t[i] ?? '')) return undefined;
  const latest = ctx.latestDate;
  const end = addDays(latest, 1);
  const seq = (...words: string[]) => words.every((w, k) => t[i + k] === w);
  const first = (options: string[][]): number => {
    for (const o of options) if (seq(...o)) return o.length;
    return 0;
  };
  // on its own a step counts from the data's end: "the year before" is the year before the latest
  let len = first(YEAR_BEFORE);
  if (len) return { ...yearRange(yearOf(latest) - 1), len, grain: 'relative', step: { unit: 'year', by: -1 } };
  len = first(YEAR_AFTER);
  if (len) return { ...yearRange(yearOf(latest) + 1), len, grain: 'relative', step: { unit: 'year', by: 1 } };
  len = first(MONTH_BEFORE);
  if (len)
    return { from: addMonths(monthStart(latest), -1), to: monthStart(latest), len, grain: 'relative', step: { unit: 'month', by: -1 } };
  len = first(MONTH_AFTER);
  if (len)
    return {
      from: addMonths(monthStart(latest), 1),
      to: addMonths(monthStart(latest), 2),
      len,
      grain: 'relative',
      step: { unit: 'month', by: 1 },
    };
  len = first([
    ['so', 'far', 'this', 'year'],
    ['this', 'year', 'so', 'far'],
    ['this', 'year'],
    ['the', 'current', 'year'],
    ['current', 'year'],
    ['year', 'to', 'date'],
    ['ytd'],
  ]);
  if (len) return { from: yearRange(yearOf(latest)).from, to: end, len, grain: 'relative' };
  len = first([
    ['last', 'month'],
    ['previous', 'month'],
    ['prior', 'month'],
  ]);
  if (len) return { from: addMonths(monthStart(latest), -1), to: monthStart(latest), len, grain: 'relative' };
  len = first([
    ['this', 'month'],
    ['the', 'current', 'month'],
    ['current', 'month'],
    ['month', 'to', 'date'],
  ]);
  if (len) return { from: monthStart(latest), to: end, len, grain: 'relative' };
  const weekStart = addDays(latest, -(isoWeekday(latest) - 1));
  len = first([
    ['last', 'week'],
    ['previous', 'week'],
    ['the', 'previous', 'week'],
  ]);
  if (len) return { from: addDays(weekStart, -7), to: weekStart, len, grain: 'relative' };
  len = first([
    ['this', 'week'],
    ['the', 'current', 'week'],
  ]);
  if (len) return { from: weekStart, to: end, len, grain: 'relative' };
  // the last/past N days|weeks|months|years, the past year: rolling, ending with the latest day
  let j = i;
  if (t[j] === 'within' || t[j] === 'over') j++;
  if (t[j] === 'the') j++;
  if (!['last', 'past', 'previous'].includes(t[j] ?? '')) return undefined;
  if (j === i && t[j] === 'last' && UNITS[t[j + 1] ?? ''] !== undefined && !/s$/.test(t[j + 1])) return undefined; // "last month" is calendar (above)
  j++;
  let n = 1;
  const count = smallNumber(t[j]);
  if (count !== undefined && UNITS[t[j + 1] ?? ''] !== undefined) {
    n = count;
    j++;
  } else if (!['day', 'week', 'month', 'year'].includes(t[j] ?? '')) {
    return undefined;
  }
  const unit = UNITS[t[j] ?? ''];
  if (!unit || n < 1 || n > 100) return undefined;
  const from =
    unit === 'day'
      ? addDays(latest, -(n - 1))
      : unit === 'week'
        ? addDays(latest, -(7 * n - 1))
        : addMonths(end, unit === 'month' ? -n : -12 * n);
  return { from, to: end, len: j + 1 - i, grain: 'relative' };
}

/** Two ends of a range; an end without a year takes the other's. A range of bare months is months of the year. */
function combine(a: Period, b: Period): { from: string; to: string } | { months: number[] } | undefined {
  if (isFull(a) && isFull(b)) return { from: a.from, to: b.to };
  if (!isFull(a) && isFull(b)) {
    if (b.grain !== 'day' && b.grain !== 'month') return undefined;
    let y = yearOf(b.from);
    const start = (yy: number) => (a.day !== undefined ? dayRange(yy, a.month, a.day).from : monthRange(yy, a.month).from);
    if (a.day !== undefined && !isValidDay(y, a.month, a.day)) return undefined;
    if (start(y) >= b.from && !(start(y) === b.from)) y -= 1;
    return { from: start(y), to: b.to };
  }
  if (isFull(a) && !isFull(b)) {
    if (a.grain !== 'day' && a.grain !== 'month') return undefined;
    let y = yearOf(a.from);
    const stop = (yy: number) => (b.day !== undefined ? dayRange(yy, b.month, b.day) : monthRange(yy, b.month));
    if (b.day !== undefined && !isValidDay(y, b.month, b.day)) return undefined;
    if (stop(y).from < a.from) y += 1;
    return { from: a.from, to: stop(y).to };
  }
  const pa = a as Partial;
  const pb = b as Partial;
  if (pa.day !== undefined || pb.day !== undefined) return undefined;
  const months: number[] = [];
  for (let mo = pa.month; ; mo = (mo % 12) + 1) {
    months.push(mo);
    if (mo === pb.month) break;
  }
  return { months };
}

const TO_WORDS = new Set(['to', 'through', 'thru', 'until', 'till', 'and']);

function rangeMatch(
  x: RuleInput,
  i: number,
  len: number,
  r: { from: string; to: string } | { months: number[] } | undefined,
): RuleMatch | undefined {
  if (!r) return undefined;
  const said = x.said(i, len);
  if ('months' in r) return { len, meanings: [{ kind: 'months', months: r.months, label: said }] };
  if (r.from >= r.to) return { len, meanings: [{ kind: 'invalid' }] };
  return { len, meanings: [{ kind: 'time', range: { from: r.from, to: r.to, said } }] };
}

/** "between A and B", "from A to B", "A to B", "A-B". */
function rangeAt(x: RuleInput, i: number): RuleMatch | undefined {
  const { t } = x;
  const lead = t[i] === 'between' || t[i] === 'from' ? 1 : 0;
  const a = periodAt(x, i + lead);
  if (!a) return undefined;
  const k = i + lead + a.len;
  const joint = t[k];
  if (!joint || !TO_WORDS.has(joint)) return undefined;
  if ((joint === 'and') !== (t[i] === 'between')) return undefined;
  // "compare 2019 to 2018" is a comparison, not a range
  if (!lead && t.slice(0, i).some((w) => /^compar/.test(w))) return undefined;
  const b = periodAt(x, k + 1);
  if (!b) return undefined;
  const r = combine(a, b);
  if (!lead && r && 'from' in r && r.from >= r.to) return undefined;
  return rangeMatch(x, i, k + 1 + b.len - i, r);
}

/** since/after/before/until/through A. */
const BOUNDS: [string[], 'since' | 'after' | 'before' | 'until'][] = [
  [['since'], 'since'],
  [['starting', 'in'], 'since'],
  [['starting', 'from'], 'since'],
  [['from', 'the', 'start', 'of'], 'since'],
  [['after'], 'after'],
  [['before'], 'before'],
  [['prior', 'to'], 'before'],
  [['until'], 'until'],
  [['till'], 'until'],
  [['through'], 'until'],
  [['up', 'to'], 'until'],
  [['up', 'until'], 'until'],
  [['up', 'through'], 'until'],
];
const BOUND_STARTS = new Set(BOUNDS.map(([w]) => w[0]));

function boundAt(x: RuleInput, i: number): RuleMatch | undefined {
  const { t, ctx } = x;
  if (!BOUND_STARTS.has(t[i] ?? '')) return undefined;
  for (const [w, kind] of BOUNDS) {
    if (!w.every((word, k) => t[i + k] === word)) continue;
    const p = periodAt(x, i + w.length);
    if (!isFull(p)) return undefined;
    const len = w.length + p.len;
    const end = addDays(ctx.latestDate, 1);
    const r =
      kind === 'since'
        ? { from: p.from, to: end }
        : kind === 'after'
          ? { from: p.to, to: end }
          : kind === 'before'
            ? { from: ctx.earliestDate, to: p.from }
            : { from: ctx.earliestDate, to: p.to };
    return rangeMatch(x, i, len, r);
  }
  return undefined;
}

/** A season of a year: "summer 2019", "the summer of 2019" (winter spans two years: not read). */
function seasonYearAt(x: RuleInput, i: number): RuleMatch | undefined {
  const { t } = x;
  const j = t[i] === 'the' ? i + 1 : i;
  const season = Object.entries(semanticModel().seasons).find(([, s]) => s.words.includes(t[j] ?? ''));
  if (!season) return undefined;
  const k = t[j + 1] === 'of' ? j + 2 : j + 1;
  const y = yearNumber(t[k]);
  if (y === undefined) return undefined;
  if (season[1].months.includes(12) && season[1].months.includes(1)) return { len: k + 1 - i, meanings: [{ kind: 'invalid' }] };
  const said = x.said(i, k + 1 - i);
  const range: TimeRange = { ...yearRange(y), said };
  const meanings: Meaning[] = [
    { kind: 'time', range },
    { kind: 'months', months: season[1].months, label: season[0] },
  ];
  return { len: k + 1 - i, meanings };
}

/** Words before a step that make it a change along a series ("how did it change from the year before"), not a period. */
const ALONG_SERIES = new Set(['from', 'than', 'to', 'vs', 'versus', 'over']);

/** "compare to the year before", "vs the year before": the step is the period compared with, not a change along a series. */
function comparedWith(t: readonly string[], i: number): boolean {
  const words = new Set((semanticModel().compare_words ?? []).map((w) => w.split(' ')[0]));
  return words.has(t[i - 1] ?? '') || (['to', 'with'].includes(t[i - 1] ?? '') && words.has(t[i - 2] ?? ''));
}

/** A single period: "2019", "march 2021", "2019-07-04", "last year". */
function periodRule(x: RuleInput, i: number): RuleMatch | undefined {
  const p = periodAt(x, i);
  if (!isFull(p)) return undefined;
  const along = ALONG_SERIES.has(x.t[i - 1] ?? '') && !comparedWith(x.t, i);
  if (p.step && x.t[i] !== 'last' && x.t[i] !== 'previous' && x.t[i] !== 'prior' && along) return undefined;
  const range = { from: p.from, to: p.to, said: x.said(i, p.len) };
  return { len: p.len, meanings: [{ kind: 'time', range, ...(p.step ? { step: p.step } : {}) }] };
}

export const timeRules: Rule[] = [rangeAt, boundAt, seasonYearAt, periodRule];
