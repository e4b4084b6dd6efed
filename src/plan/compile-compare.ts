// Two sides that differ in one filter, side by side (versus.ts): each side is
// compiled as the plan it is (so each reads the rollup that holds it, through
// the one rollup choice), and the two results are joined on their groups.
// Counts and shares: a side's value is its incidents (a group one side lacks is 0) or its share in percent
// (a group one side lacks has no share: NULL).
import type { Dimension, QueryPlan } from './query-plan.js';
import { sideWords, versusKeys, versusSides } from './versus.js';

/** What compilePlan gives (compile.ts; not imported, compile.ts calls this file). */
interface Compiled {
  sql: string;
  rollup?: string;
  assumptions: string[];
}

/** The label column each grouping compiles to (compile.ts axis names). */
const LABEL: Record<Dimension, string> = {
  year: 'year',
  month: 'month',
  month_of_year: 'month',
  weekday: 'weekday',
  hour: 'hour',
  date: 'day',
  day_of_year: 'day_of_year',
  community_area: 'community_area',
  district: 'district',
  ward: 'ward',
  beat: 'beat',
  block: 'block',
  type: 'primary_type',
  location: 'location_description',
};

/** A side's column: incidents_battery, incidents_district_7; the two never share a name. */
function versusColumns(plan: QueryPlan, value: string): [string, string] {
  const keys = versusKeys(plan.versus!);
  const [a, b] = versusSides(plan);
  const words = (p: QueryPlan) =>
    `${value}_${sideWords(p.filters, keys, new Map())
      .toLowerCase()
      .replace(/[^0-9a-z]+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 40)}`;
  const [ca, cb] = [words(a), words(b)];
  return ca === cb ? [value, `compared_${value}`] : [ca, cb];
}

/** `fail`: the compiler's own error, so callers refuse it as any plan that does not compile. */
export function compileVersus(plan: QueryPlan, compile: (p: QueryPlan) => Compiled, fail: (why: string) => Error): Compiled {
  if (plan.measure.kind !== 'count' && plan.measure.kind !== 'share')
    throw fail('two sides side by side are compared as counts or shares only');
  if (plan.compareWith) throw fail('a comparison of two periods and two sides at once');
  if (plan.top || plan.none || plan.ofTotal || plan.groupBy.length > 1)
    throw fail('two sides side by side need a plain count or share, or one by one grouping');
  const share = plan.measure.kind === 'share';
  const value = share ? 'share_pct' : 'incidents';
  const [a, b] = versusSides(plan).map(compile);
  const [ca, cb] = versusColumns(plan, value);
  const indent = (sql: string) => `  ${sql.replace(/\n/g, '\n  ')}`;
  // each side's rows in its own order (the axis, or most first), numbered, so the joined rows keep the first side's order
  const l = plan.groupBy.length ? LABEL[plan.groupBy[0]] : undefined;
  const side = (c: Compiled) => `SELECT ${l ? `q.${l}, ` : ''}q.${value} AS v, row_number() OVER () AS ord FROM (\n${indent(c.sql)}\n) q`;
  const missing = (s: string) => (share ? `${s}.v` : `coalesce(${s}.v, 0)`);
  const ctes = `WITH a AS (\n${indent(side(a))}\n), b AS (\n${indent(side(b))}\n)`;
  let sql: string;
  if (!plan.groupBy.length) sql = `${ctes}\nSELECT a.v AS ${ca}, b.v AS ${cb}\nFROM a CROSS JOIN b`;
  else
    sql = `${ctes}\nSELECT coalesce(a.${l}, b.${l}) AS ${l}, ${missing('a')} AS ${ca}, ${missing('b')} AS ${cb}\nFROM a FULL JOIN b ON a.${l} = b.${l}\nORDER BY a.ord, b.ord`;
  const rollup = a.rollup && b.rollup ? (a.rollup === b.rollup ? a.rollup : `${a.rollup}, ${b.rollup}`) : undefined;
  return { sql, assumptions: [...new Set([...a.assumptions, ...b.assumptions])], ...(rollup ? { rollup } : {}) };
}
