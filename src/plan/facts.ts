// The claims a grouped answer makes, computed by the database over every group
// of the result (never over the rows kept for the table): how many groups,
// the total, the highest and the lowest with everything tied with them, the
// groups with zero, and for a top/bottom-N cut how many groups outside the
// cut share the value at the cut. One query over the plan's SQL without its
// cut, so the narration cannot state a fact of the first 1,000 rows as a fact
// of the result.
import type pg from 'pg';
import type { Cell } from '../core/answer.js';
import { withReadOnly } from '../db/read-only.js';
import { compilePlan } from './compile.js';
import type { QueryPlan } from './query-plan.js';

/** How many labels of a tie group are named before "and N more". */
export const TIE_NAMES = 5;

export interface GroupFacts {
  groups: number;
  /** groups with a value (a share of nothing is no value) */
  valued: number;
  total: number;
  highest: { value: number; labels: Cell[][]; count: number } | undefined;
  lowest: { value: number; labels: Cell[][]; count: number } | undefined;
  zeros: number;
  /** for a top/bottom-N plan: all groups (in and outside the cut) whose value equals the value at the cut */
  atCut?: number;
}

/** The SQL of the facts: the plan's groups without its cut, summarised. `$1` is the value at the cut (or null). */
function factsSql(plan: QueryPlan, choices: Record<string, string>): string {
  const all: QueryPlan = { ...plan, top: undefined, none: undefined, order: 'axis' };
  // the same groups as the answer: a fewest question's every place (zeros included), without the cut
  const inner = compilePlan(all, choices, { everyPlace: plan.top?.order === 'asc' || plan.none === true }).sql;
  const labels = plan.groupBy.map((_, i) => `l${i + 1}`);
  const extra = plan.measure.kind === 'share' ? ', matching, incidents' : plan.ofTotal ? ', incidents' : '';
  const tie = (fn: 'max' | 'min') => `(SELECT array_agg(ARRAY[${labels.map((l) => `${l}::text`).join(', ')}] ORDER BY ord) FROM (
    SELECT ${labels.join(', ')}, ord FROM ro WHERE v = (SELECT ${fn}(v) FROM ro) ORDER BY ord LIMIT ${TIE_NAMES + 1}) t)`;
  return `WITH r(${[...labels, 'v'].join(', ')}${extra}) AS (
${inner}
), ro AS (SELECT r.*, row_number() OVER () AS ord FROM r)
SELECT count(*)::int AS groups,
       count(v)::int AS valued,
       coalesce(sum(v), 0)::float8 AS total,
       max(v)::float8 AS hi,
       min(v)::float8 AS lo,
       count(*) FILTER (WHERE v = (SELECT max(v) FROM ro))::int AS hi_n,
       count(*) FILTER (WHERE v = (SELECT min(v) FROM ro))::int AS lo_n,
       count(*) FILTER (WHERE v = 0)::int AS zeros,
       count(*) FILTER (WHERE v = $1::float8)::int AS at_cut,
       ${tie('max')} AS hi_labels,
       ${tie('min')} AS lo_labels
FROM ro`;
}

export async function groupFacts(
  pool: pg.Pool,
  plan: QueryPlan,
  choices: Record<string, string>,
  cutValue: number | null,
  statementTimeoutMs: number,
): Promise<GroupFacts> {
  const sql = factsSql(plan, choices);
  const { rows } = await withReadOnly(pool, { statementTimeoutMs, watchdog: true }, (client) => client.query(sql, [cutValue]));
  const r = rows[0] as Record<string, unknown>;
  const extreme = (value: unknown, labels: unknown, count: unknown) =>
    value === null ? undefined : { value: Number(value), labels: (labels as Cell[][] | null) ?? [], count: Number(count) };
  return {
    groups: Number(r.groups),
    valued: Number(r.valued),
    total: Number(r.total),
    highest: extreme(r.hi, r.hi_labels, r.hi_n),
    lowest: extreme(r.lo, r.lo_labels, r.lo_n),
    zeros: Number(r.zeros),
    ...(plan.top && cutValue !== null ? { atCut: Number(r.at_cut) } : {}),
  };
}
