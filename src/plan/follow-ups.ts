// Suggested follow-ups under an answer: up to three edits of its plan that
// the reader understands as follow-ups in the same thread ("compare with
// 2018", "by month", "only arrests", "top 10", "the fewest"), chosen from what
// the plan did not do yet. Each is built here as the edit it names (one slot
// of the plan changed), and offered only when its words, typed in the thread,
// read as that same plan and it compiles: a button and the words on it always
// answer the same question. Each carries its plan, so a button answers the
// answer it sits under, whatever was asked in the thread since.
import { compilePlan } from './compile.js';
import { planKey } from './plan-key.js';
import { parsePlan, type QueryPlan, type QueryPlanInput } from './query-plan.js';
import { readInThread, type ReadContext } from './reader.js';
import { monthName } from './words.js';
import { titleCase } from './read/lexicon.js';

const TIME_DIMENSIONS = new Set(['year', 'month', 'month_of_year', 'weekday', 'hour', 'date', 'day_of_year']);

/** A whole calendar year [Y-01-01, Y+1-01-01), if that is what the range is. */
function wholeYear(range: { from: string; to: string } | undefined): number | undefined {
  if (!range) return undefined;
  const y = Number(range.from.slice(0, 4));
  return range.from === `${y}-01-01` && range.to === `${y + 1}-01-01` ? y : undefined;
}

/** A whole calendar month, if that is what the range is. */
function wholeMonth(range: { from: string; to: string } | undefined): { year: number; month: number } | undefined {
  if (!range || !range.from.endsWith('-01')) return undefined;
  const [year, month] = [Number(range.from.slice(0, 4)), Number(range.from.slice(5, 7))];
  const next = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
  return range.to === next ? { year, month } : undefined;
}

export interface FollowUp {
  label: string;
  plan: QueryPlan;
}

interface Candidate {
  label: string;
  edit: QueryPlanInput;
}

export function suggestFollowUps(plan: QueryPlan, ctx: ReadContext, choices: Record<string, string> = {}): FollowUp[] {
  const out: FollowUp[] = [];
  for (const { label, edit } of candidates(plan, Number(ctx.earliestDate.slice(0, 4)))) {
    if (out.length === 3) break;
    const intended = parsePlan(edit);
    // the words on the button, typed in the thread, must ask the same question the button carries
    const reading = readInThread(label, plan, ctx);
    if (!reading.ok || !reading.edit || planKey(parsePlan(reading.plan), choices) !== planKey(intended, choices)) continue;
    try {
      compilePlan(intended, choices);
    } catch {
      continue;
    }
    out.push({ label, plan: parsePlan(reading.plan) });
  }
  return out;
}

/** The edits worth offering, most useful first: a finer time, a comparison with the year before, a filter, a ranking. */
function candidates(plan: QueryPlan, earliestYear: number): Candidate[] {
  const out: Candidate[] = [];
  const time = plan.filters.time;
  const year = wholeYear(time);
  const month = wholeMonth(time);
  const grouped = plan.groupBy.length > 0;
  const byTime = plan.groupBy.some((d) => TIME_DIMENSIONS.has(d));
  const perGroup = plan.measure.kind === 'average_per' || plan.measure.kind === 'percentile_per' || plan.measure.kind === 'average_gap';
  const counted = plan.measure.kind === 'count' || plan.measure.kind === 'share';
  // a finer time for an answer over a year that is not along time yet (a comparison then goes month by month)
  if (!byTime && !grouped && !perGroup && year !== undefined) out.push({ label: 'by month', edit: { ...plan, groupBy: ['month'] } });
  // the same period a year earlier: after a count, a by-month series, a top N, a share
  if (!plan.compareWith && !(grouped && perGroup)) {
    if (year !== undefined && year - 1 >= earliestYear)
      out.push({ label: `compare with ${year - 1}`, edit: { ...plan, compareWith: { from: `${year - 1}-01-01`, to: `${year}-01-01` } } });
    else if (month && month.year - 1 >= earliestYear) {
      const from = `${month.year - 1}${time!.from.slice(4)}`;
      const to = `${Number(time!.to.slice(0, 4)) - 1}${time!.to.slice(4)}`;
      out.push({
        label: `compare with ${titleCase(monthName(month.month))} ${month.year - 1}`,
        edit: { ...plan, compareWith: { from, to } },
      });
    }
  }
  if (!grouped && !plan.compareWith && plan.measure.kind === 'count' && !time)
    out.push({ label: 'by year', edit: { ...plan, groupBy: ['year'] } });
  if (counted && plan.filters.arrest === undefined && !(plan.measure.kind === 'share' && plan.measure.part.arrest !== undefined))
    out.push({ label: 'only arrests', edit: { ...plan, filters: { ...plan.filters, arrest: true } } });
  if (grouped && !plan.top && !byTime) out.push({ label: 'top 10', edit: { ...plan, top: { n: 10, order: 'desc' } } });
  // the other end of a ranking
  if (plan.top && plan.top.order === 'desc' && plan.top.n > 1)
    out.push({ label: `bottom ${plan.top.n}`, edit: { ...plan, top: { n: plan.top.n, order: 'asc' } } });
  return out;
}
