// The identity of a resolved plan: two questions mean the same thing when their
// plans (and the glossary choices those plans rest on) are equal, whatever
// their wording or the thread they were asked in. Verified pairs of plan
// answers are keyed by it.
import { createHash } from 'node:crypto';
import type { QueryPlan } from './query-plan.js';

/** The glossary terms a plan's meaning depends on: their choices are part of its identity. */
const TERMS_OF_PLAN = (plan: QueryPlan): string[] => [
  ...(plan.filters.category === 'violent' || (plan.measure.kind === 'share' && plan.measure.part.category === 'violent')
    ? ['violent_crime']
    : []),
  ...(plan.filters.weekend || (plan.measure.kind === 'share' && plan.measure.part.weekend) ? ['weekend'] : []),
  ...(plan.filters.night || (plan.measure.kind === 'share' && plan.measure.part.night) ? ['night'] : []),
  ...(plan.measure.kind === 'average_per' && plan.measure.per === 'block' ? ['per_block_average'] : []),
  ...(plan.groupBy.includes('day_of_year') ? ['calendar_day'] : []),
];

/** Sorted keys, sorted sets, no "said" words: only what changes the answer. */
function canonical(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v));
    // groupBy's order is meaningful (rows, then columns); filter lists are sets
    return key === 'groupBy' ? items : [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (k === 'said' || v === undefined) continue;
      out[k] = canonical(v, k);
    }
    return out;
  }
  return value;
}

export function planKey(plan: QueryPlan, choices: Record<string, string>): string {
  const used = Object.fromEntries(TERMS_OF_PLAN(plan).map((t) => [t, choices[t] ?? null]));
  const text = JSON.stringify(canonical({ plan, choices: used }));
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
