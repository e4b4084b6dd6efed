// Suggested follow-ups under an answer: two or three edits of its plan that
// the reader understands as follow-ups in the same thread ("by month",
// "compare with 2018", "only arrests", "top 10", "by year"), chosen from
// what the plan did not do yet. Each is a question that compiles: no
// comparison of a grouped count, no grouping on top of a ranking. Each
// carries the plan it asks (the edit of this plan), so a button answers
// the answer it sits under, whatever was asked in the thread since.
import { compilePlan } from './compile.js';
import { parsePlan, type QueryPlan } from './query-plan.js';
import { readInThread, type ReadContext } from './reader.js';

const TIME_DIMENSIONS = new Set(['year', 'month', 'month_of_year', 'weekday', 'hour', 'date', 'day_of_year']);

/** A whole calendar year [Y-01-01, Y+1-01-01), if that is what the range is. */
function wholeYear(range: { from: string; to: string } | undefined): number | undefined {
  if (!range) return undefined;
  const y = Number(range.from.slice(0, 4));
  return range.from === `${y}-01-01` && range.to === `${y + 1}-01-01` ? y : undefined;
}

export interface FollowUp {
  label: string;
  plan: QueryPlan;
}

export function suggestFollowUps(plan: QueryPlan, ctx: ReadContext, choices: Record<string, string> = {}): FollowUp[] {
  const out: FollowUp[] = [];
  for (const label of followUpLabels(plan, Number(ctx.earliestDate.slice(0, 4)))) {
    const reading = readInThread(label, plan, ctx);
    if (!reading.ok || !reading.edit) continue;
    const edited = parsePlan(reading.plan);
    try {
      compilePlan(edited, choices);
    } catch {
      continue;
    }
    out.push({ label, plan: edited });
  }
  return out;
}

function followUpLabels(plan: QueryPlan, earliestYear: number): string[] {
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
