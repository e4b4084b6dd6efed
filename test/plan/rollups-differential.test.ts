// Exact by construction, and proven (issue 22): every benchmark question the
// reader answers, and some 2,000 generated plans, give the same rows from the
// rollup the compiler picks as from crimes itself, on generated data loaded
// through the real ingest path.
import { describe, expect, it } from 'vitest';
import { readPlanContext } from '../../src/agents/sql/agent.js';
import { benchmarkPlans } from '../../src/eval/benchmark-plans.js';
import { compilePlan, PlanCompileError } from '../../src/plan/compile.js';
import { parsePlan, type QueryPlan } from '../../src/plan/query-plan.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { randomPlans } from '../../src/plan/random-plans.js';

const data = crimeDatabase(30_000);

async function answers(sql: string) {
  const { rows, fields } = await data.db.reader!.pool.query({ text: sql, rowMode: 'array' });
  return { columns: fields.map((f) => f.name), rows };
}

/**
 * The plan's rows from its rollup and from crimes; undefined when it reads nothing from a rollup (or does not
 * compile). `rollup` is undefined when the counts come from crimes and only the members of a place of all time
 * (every block, every beat) from a rollup.
 */
async function bothWays(plan: QueryPlan, choices: Record<string, string>) {
  let fast;
  try {
    fast = compilePlan(plan, choices);
  } catch (error) {
    if (error instanceof PlanCompileError) return undefined;
    throw error;
  }
  const raw = compilePlan(plan, choices, { rollups: false });
  if (!fast.rollup && fast.sql === raw.sql) return undefined;
  return { rollup: fast.rollup, sql: fast.sql, fast: await answers(fast.sql), raw: await answers(raw.sql) };
}

describe('rollups answer exactly as crimes', () => {
  it('every benchmark question the reader answers (most from a rollup)', async () => {
    const plans = benchmarkPlans(await readPlanContext(data.db.pool));
    expect(plans.length).toBeGreaterThan(80);
    let fromRollups = 0;
    for (const p of plans) {
      const got = await bothWays(p.plan, p.choices);
      if (!got) continue;
      if (got.rollup) fromRollups++;
      expect(got.fast, `${p.id} ${p.question}\n${got.sql}`).toEqual(got.raw);
    }
    // the benchmark's questions are what the rollups were chosen for
    expect(fromRollups / plans.length).toBeGreaterThan(0.6);
  });

  it("the seed paper's gap between crimes on a block, over every incident: from the block rollup and crimes' index", async () => {
    // a block with no incident recorded is one group, as GROUP BY block has it
    await data.db.pool.query('UPDATE crimes SET block = NULL WHERE id % 97 = 0');
    for (const unit of ['day', 'hour'] as const) {
      const got = await bothWays(parsePlan({ measure: { kind: 'average_gap', unit } }), {});
      expect(got?.rollup).toBe('crimes_by_block');
      expect(got!.fast).toEqual(got!.raw);
      expect(Number(got!.fast.rows[0][1])).toBeGreaterThan(20_000); // gaps: nearly every incident follows another on its block
    }
    // a gap over some incidents reads their timestamps: crimes
    expect(compilePlan(parsePlan({ measure: { kind: 'average_gap', unit: 'day' }, filters: { types: ['THEFT'] } })).rollup).toBeUndefined();
  });

  it('locations left out keep the incidents of no recorded location, from a location rollup as from crimes', async () => {
    const kept = (locations: string[]) => ({ types: ['ROBBERY'], locations, exceptLocations: true as const });
    const plans = [
      parsePlan({ measure: { kind: 'count' }, groupBy: ['year'], filters: kept(['STREET']) }),
      parsePlan({ measure: { kind: 'count' }, groupBy: ['location'], filters: kept(['STREET', 'SIDEWALK']) }),
      parsePlan({ measure: { kind: 'count' }, groupBy: ['month'], filters: { locations: ['STREET'], exceptLocations: true } }),
    ];
    for (const plan of plans) {
      const got = await bothWays(plan, {});
      expect(got?.rollup, JSON.stringify(plan)).toMatch(/location/);
      expect(got!.fast).toEqual(got!.raw);
    }
    // every incident is on the street, elsewhere, or at no recorded location
    const street = await answers(compilePlan(parsePlan({ measure: { kind: 'count' }, filters: { locations: ['STREET'] } })).sql);
    const rest = await answers(
      compilePlan(parsePlan({ measure: { kind: 'count' }, filters: { locations: ['STREET'], exceptLocations: true } })).sql,
    );
    const all = await data.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM crimes');
    expect(Number(street.rows[0][0]) + Number(rest.rows[0][0])).toBe(Number(all.rows[0].n));
  });

  it('2,000 generated plans over the whole plan language', async () => {
    const { rows } = await data.db.pool.query<{ lo: number; hi: number }>('SELECT min(year) AS lo, max(year) AS hi FROM crimes');
    const plans = randomPlans(2_000, 22, [rows[0].lo, rows[0].hi]);
    const used = new Map<string, number>();
    let members = 0;
    for (const [i, p] of plans.entries()) {
      const got = await bothWays(p.plan, p.choices);
      if (!got) continue;
      if (got.rollup) used.set(got.rollup, (used.get(got.rollup) ?? 0) + 1);
      else members++;
      expect(got.fast, `plan ${i}: ${JSON.stringify(p.plan)} ${JSON.stringify(p.choices)}\n${got.sql}`).toEqual(got.raw);
    }
    // every rollup is exercised, each by many plans
    expect([...used.keys()].sort()).toEqual([
      'crimes_by_block',
      'crimes_by_day',
      'crimes_by_hour',
      'crimes_by_month',
      'crimes_by_month_hour',
      'crimes_by_month_location',
      'crimes_by_place',
      'crimes_by_year_area',
      'crimes_by_year_beat',
      'crimes_by_year_district',
      'crimes_by_year_hour',
      'crimes_by_year_hour_place',
      'crimes_by_year_location',
      'crimes_by_year_place',
      'crimes_by_year_type',
      'crimes_by_year_ward',
      'crimes_by_year_weekday_hour',
    ]);
    for (const [, n] of used) expect(n).toBeGreaterThan(10);
    // counts from crimes, the members of a place of all time from a rollup (an average per block, per beat)
    expect(members).toBeGreaterThan(10);
  }, 300_000); // 4,000 queries: under a minute on a quiet machine, more on a busy one
});
