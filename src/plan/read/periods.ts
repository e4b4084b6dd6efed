// Periods as one slot of meaning: a year, a month name, "last year" and "the
// year before" all say the one period of a question. The helpers here move a
// period by a step, join a set of periods into one stretch ("in 2024 and
// 2025"), and tell how long a period is, so that an edit can set, narrow or
// widen the period whatever words it was said in.
import type { TimeRange } from '../query-plan.js';
import { addDays, addMonths, monthOf, monthRange, yearOf, yearRange } from './dates.js';
import type { PeriodStep } from './pieces.js';

/** The period moved by a step ("the year before" 2020-03 is 2019-03); its words stay the step's. */
export function stepPeriod(t: TimeRange, step: PeriodStep, said?: string): TimeRange {
  const months = step.unit === 'year' ? 12 * step.by : step.by;
  if (step.adjoining) return { from: addMonths(t.from, months), to: t.from, ...(said ? { said } : {}) };
  return { from: addMonths(t.from, months), to: addMonths(t.to, months), ...(said ? { said } : {}) };
}

/** The last day a half-open period holds. */
export const lastDay = (t: TimeRange): string => addDays(t.to, -1);

/** The calendar year a period lies in, when it lies in one. */
export function yearWithin(t: TimeRange): number | undefined {
  const y = yearOf(t.from);
  return yearOf(lastDay(t)) === y ? y : undefined;
}

/** A whole calendar year. */
export const isOneYear = (t: TimeRange): boolean => {
  const y = yearWithin(t);
  return y !== undefined && t.from === yearRange(y).from && t.to === yearRange(y).to;
};

/** A whole calendar month. */
export function isOneMonth(t: TimeRange): boolean {
  const r = monthRange(yearOf(t.from), monthOf(t.from));
  return t.from === r.from && t.to === r.to;
}

export const isOneDay = (t: TimeRange): boolean => addDays(t.from, 1) === t.to;

/** Months of one year as a period: April..May 2020. Undefined unless the months run on (no wrap past December). */
export function monthsOfYear(y: number, months: readonly number[]): TimeRange | undefined {
  const sorted = [...months].sort((a, b) => a - b);
  if (sorted.some((m, k) => k > 0 && m !== sorted[k - 1] + 1)) return undefined;
  return { from: monthRange(y, sorted[0]).from, to: monthRange(y, sorted.at(-1)!).to };
}

/**
 * A set of periods as the one stretch they make ("2024 and 2025", "2019, 2020 and 2021"), or undefined
 * when they leave a gap: the plan holds one period (two far apart are a comparison).
 */
export function joinPeriods(periods: readonly TimeRange[]): TimeRange | undefined {
  const sorted = [...periods].sort((a, b) => (a.from < b.from ? -1 : 1));
  for (let k = 1; k < sorted.length; k++) if (sorted[k].from > sorted[k - 1].to) return undefined;
  const to = sorted.reduce((m, p) => (p.to > m ? p.to : m), sorted[0].to);
  return { from: sorted[0].from, to };
}

/** How many whole months a period starts after another (both on the first of a month), else undefined. */
export function monthsBetween(a: TimeRange, b: TimeRange): number | undefined {
  if (!a.from.endsWith('-01') || !b.from.endsWith('-01')) return undefined;
  return (yearOf(b.from) - yearOf(a.from)) * 12 + (monthOf(b.from) - monthOf(a.from));
}
