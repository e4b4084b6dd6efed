// Suggested follow-ups under an answer: two or three edits of its plan that
// the reader understands as follow-ups in the same thread ("by month",
// "compare with 2018", "only arrests", "top 10", "by year"), chosen from
// what the plan did not do yet. Each is a question that compiles: no
// comparison of a grouped count, no grouping on top of a ranking.
import type { QueryPlan } from './query-plan.js';

const TIME_DIMENSIONS = new Set(['year', 'month', 'month_of_year', 'weekday', 'hour', 'date', 'day_of_year']);

/** A whole calendar year [Y-01-01, Y+1-01-01), if that is what the range is. */
function wholeYear(range: { from: string; to: string } | undefined): number | undefined {
  if (!range) return undefined;
  const y = Number(range.from.slice(0, 4));
  return range.from === `${y}-01-01` && range.to === `${y + 1}-01-01` ? y : undefined;
}

export function suggestFollowUps(plan: QueryPlan, earliestYear: number): string[] {
  const out: string[] = [];
  const year = wholeYear(plan.filters.time);
  const grouped = plan.groupBy.length > 0;
  const count = plan.measure.kind === 'count';
  if (!grouped && !plan.compareWith && year !== undefined) out.push('by month');
  if (count && !grouped && !plan.compareWith && year !== undefined && year - 1 >= earliestYear) out.push(`compare with ${year - 1}`);
  if (count && !grouped && !plan.compareWith && year === undefined && !plan.filters.time) out.push('by year');
  if (count && plan.filters.arrest === undefined && !plan.compareWith) out.push('only arrests');
  if (grouped && !plan.top && !plan.groupBy.some((d) => TIME_DIMENSIONS.has(d))) out.push('top 10');
  return out.slice(0, 3);
}
