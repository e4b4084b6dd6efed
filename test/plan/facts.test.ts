// The claims of a grouped answer against an independent count over all rows
// (issue 20): for every grouping, filter and cut drawn here, the database's
// facts (groups, total, highest and lowest with their ties, zeros, the tie at
// the cut) equal what a plain GROUP BY over the whole table says, and the
// narration says them: ties as ties, zeros on a "fewest" place axis, "tied
// with N not shown" when the cut splits a tie, no bottom for a "most".
import { describe, expect, it } from 'vitest';
import { runSql } from '../../src/agents/sql/execute.js';
import { compilePlan } from '../../src/plan/compile.js';
import { groupFacts } from '../../src/plan/facts.js';
import { narratePlan } from '../../src/plan/narrate.js';
import { parsePlan, type Dimension, type QueryPlan } from '../../src/plan/query-plan.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { inertProblem } from '../../src/core/inert-text.js';

const data = crimeDatabase(6_000);

/** The key of a dimension over a crime row, as a plain query would write it (not the compiler's). */
const KEY: Partial<Record<Dimension, string>> = {
  community_area: 'community_area',
  district: 'district',
  ward: 'ward',
  block: 'block',
  type: 'primary_type',
  location: 'location_description',
  hour: 'extract(hour FROM date)::int',
  year: 'year',
  date: 'date::date',
};
/** Calendar and cyclic axes are complete in every answer: each hour, year and day of the period is a group. */
const CALENDAR = (d: Dimension, year: number | undefined): string | undefined => {
  if (d === 'hour') return 'SELECT generate_series(0, 23) AS k';
  if (d === 'year') return year ? `SELECT ${year} AS k` : 'SELECT generate_series(min(year), max(year)) AS k FROM crimes';
  if (d === 'date') {
    return year
      ? `SELECT generate_series('${year}-01-01'::date, '${year}-12-31'::date, interval '1 day')::date AS k`
      : `SELECT generate_series(min(date)::date, max(date)::date, interval '1 day')::date AS k FROM crimes`;
  }
  return undefined;
};
/** Members of a complete place axis (every one counts, 0 or not, for "fewest"). */
const EVERY: Partial<Record<Dimension, string>> = {
  community_area: 'SELECT community_area AS k FROM community_areas',
  district: 'SELECT unnest(ARRAY[1,2,3,4,5,6,7,8,9,10,11,12,14,15,16,17,18,19,20,22,24,25]) AS k',
  ward: 'SELECT generate_series(1, 50) AS k',
};

interface Truth {
  values: number[];
  total: number;
  max: number;
  min: number;
  maxN: number;
  minN: number;
  zeros: number;
}

async function truth(plan: QueryPlan, types: string[] | undefined, year: number | undefined): Promise<Truth> {
  const d = plan.groupBy[0];
  const where = [`${KEY[d]} IS NOT NULL`, ...(types ? [`primary_type = ANY($1)`] : []), ...(year ? [`year = ${year}`] : [])].join(' AND ');
  const found = `SELECT ${KEY[d]} AS k, count(*)::int AS n FROM crimes WHERE ${where} GROUP BY 1`;
  const every = CALENDAR(d, year) ?? (plan.top?.order === 'asc' && EVERY[d]);
  const sql = every
    ? `SELECT coalesce(f.n, 0) AS n FROM (${every} UNION SELECT k FROM (${found}) x) m LEFT JOIN (${found}) f USING (k)`
    : `SELECT n FROM (${found}) f`;
  const { rows } = await data.db.pool.query<{ n: number }>(sql, types ? [types] : []);
  const values = rows.map((r) => Number(r.n));
  const max = Math.max(...values);
  const min = Math.min(...values);
  return {
    values,
    total: values.reduce((a, b) => a + b, 0),
    max,
    min,
    maxN: values.filter((v) => v === max).length,
    minN: values.filter((v) => v === min).length,
    zeros: values.filter((v) => v === 0).length,
  };
}

/** Plans drawn from every grouping, a few filters and every kind of cut. */
function plans(): { plan: QueryPlan; types?: string[]; year?: number }[] {
  const out: { plan: QueryPlan; types?: string[]; year?: number }[] = [];
  const dims: Dimension[] = ['community_area', 'district', 'ward', 'block', 'type', 'location', 'hour', 'year', 'date'];
  const filters: { types?: string[]; year?: number }[] = [
    {},
    { types: ['THEFT'] },
    { types: ['HOMICIDE'], year: 2019 },
    { types: ['ROBBERY'], year: 2020 },
  ];
  const cuts: (QueryPlan['top'] | 'ranking' | undefined)[] = [
    undefined,
    'ranking',
    { n: 1, order: 'desc' },
    { n: 5, order: 'desc' },
    { n: 1, order: 'asc' },
    { n: 3, order: 'asc' },
    { n: 10, order: 'desc' },
  ];
  for (const d of dims) {
    for (const f of filters) {
      if (d === 'type' && f.types) continue;
      for (const cut of cuts) {
        const plan = parsePlan({
          measure: { kind: 'count' },
          groupBy: [d],
          filters: {
            ...(f.types ? { types: f.types } : {}),
            ...(f.year ? { time: { from: `${f.year}-01-01`, to: `${f.year + 1}-01-01` } } : {}),
          },
          ...(cut === 'ranking' ? { order: 'measure' } : cut ? { top: cut } : {}),
        });
        out.push({ plan, ...f });
      }
    }
  }
  return out;
}

describe('the facts of a grouped answer are the facts of all its rows', () => {
  it('groups, total, highest, lowest, ties, zeros and the tie at the cut equal an independent count; the narration says them', async () => {
    const ctx = { areaNames: new Map<number, string>(), choices: {} };
    const wrong: string[] = [];
    let checked = 0;
    let largest = 0;
    for (const { plan, types, year } of plans()) {
      const t = await truth(plan, types, year);
      if (!t.values.length || t.total === 0) continue;
      const result = await runSql(data.db.pool, compilePlan(plan).sql, 10_000, 1_000);
      const last = plan.top ? result.rows.at(-1)?.[1] : null;
      const facts = await groupFacts(data.db.pool, plan, {}, last === null || last === undefined ? null : Number(last), 10_000);
      const label = `${JSON.stringify(plan.groupBy)} ${JSON.stringify(plan.filters)} ${JSON.stringify(plan.top ?? plan.order ?? 'all')}`;
      const expected = { groups: t.values.length, total: t.total, hi: t.max, lo: t.min, hiN: t.maxN, loN: t.minN, zeros: t.zeros };
      const got = {
        groups: facts.groups,
        total: facts.total,
        hi: facts.highest?.value,
        lo: facts.lowest?.value,
        hiN: facts.highest?.count,
        loN: facts.lowest?.count,
        zeros: facts.zeros,
      };
      if (JSON.stringify(got) !== JSON.stringify(expected))
        wrong.push(`${label}: facts ${JSON.stringify(got)}, truth ${JSON.stringify(expected)}`);
      largest = Math.max(largest, facts.groups);
      const { narration } = narratePlan(plan, result, ctx, facts);
      const ascending = plan.top?.order === 'asc';
      const ranking = Boolean(plan.top) || plan.order === 'measure';
      const end = ascending ? t.min : t.max;
      const endN = ascending ? t.minN : t.maxN;
      // the end of the ranking, with its tie said as a tie; a top/bottom N lists every group it kept, in order,
      // a tie as one place ("1. ward 8 and ward 18, tied at 1")
      const listed = plan.top && plan.top.n > 1;
      const tieWords = listed ? `tied at ${end.toLocaleString('en-US')}` : `${end.toLocaleString('en-US')}, tied between`;
      if (endN > 1 && !narration.includes(tieWords)) wrong.push(`${label}: a tie of ${endN} at ${end} not said: ${narration}`);
      if (!listed && endN > 5 && !narration.includes(`and ${(endN - 5).toLocaleString('en-US')} more`))
        wrong.push(`${label}: ${endN - 5} more not counted: ${narration}`);
      if (listed) {
        const kept = result.rows.slice(0, 10).map((r) => String(r[0]));
        const missing = kept.filter((k) => !narration.includes(plan.groupBy[0] === 'hour' ? `${k.padStart(2, '0')}:00` : k));
        if (missing.length) wrong.push(`${label}: the ranking does not name ${missing.join(', ')}: ${narration}`);
        if (t.values.length > result.rows.length && !narration.includes(`${t.total.toLocaleString('en-US')} in all`))
          wrong.push(`${label}: the total over every group (${t.total}) is not said: ${narration}`);
      }
      // a "most" does not narrate its bottom; a plain grouping does
      if (ranking && !ascending && /Lowest|Fewest/.test(narration)) wrong.push(`${label}: a ranking narrated its bottom: ${narration}`);
      if (!ranking && t.values.length > 1 && !narration.includes('Lowest')) wrong.push(`${label}: no lowest: ${narration}`);
      // zeros of a "fewest" place axis are said
      if (ascending && EVERY[plan.groupBy[0]] && t.zeros > 0 && !narration.includes('had none'))
        wrong.push(`${label}: ${t.zeros} zeros not said: ${narration}`);
      // a cut that splits a tie says so
      if (plan.top && plan.top.n > 1 && last !== undefined && last !== null) {
        const beyond = t.values.filter((v) => v === Number(last)).length - result.rows.filter((r) => Number(r[1]) === Number(last)).length;
        if (beyond > 0 && !narration.includes('not shown'))
          wrong.push(`${label}: the cut splits a tie with ${beyond} more, not said: ${narration}`);
        if (beyond === 0 && narration.includes('not shown'))
          wrong.push(`${label}: a tie at the cut said where there is none: ${narration}`);
      }
      if (!plan.top && !narration.startsWith(`${t.values.length.toLocaleString('en-US')} `))
        wrong.push(`${label}: the number of groups is not ${t.values.length}: ${narration}`);
      // the inertness check lets every real narration through
      if (inertProblem(narration)) wrong.push(`${label}: a real narration was withheld (${inertProblem(narration)}): ${narration}`);
      checked++;
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(200);
    // the results reach thousands of groups (blocks, days), well past the 1,000 rows an answer keeps
    expect(largest).toBeGreaterThan(1_000);
  }, 180_000);
});
