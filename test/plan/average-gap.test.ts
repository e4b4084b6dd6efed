// The seed paper's hard question as a plan: the average time between
// consecutive incidents on the same block, compiled as one GROUP BY, gives the
// window form's exact value (what the benchmark's gold SQL computes). Over every
// incident it reads the blocks' counts from crimes_by_block and each block's
// first and last incident from crimes' (block, date) index (migration 042).
import { describe, expect, it } from 'vitest';
import { compilePlan, PlanCompileError } from '../../src/plan/compile.js';
import { parsePlan, type QueryPlanInput } from '../../src/plan/query-plan.js';
import { understoodAs } from '../../src/plan/narrate.js';
import { crimeDatabase } from '../helpers/crime-data.js';

const data = crimeDatabase(20_000);

const value = async (sql: string) => (await data.db.reader!.pool.query(sql)).rows[0];

/** The window form as a model writes it: every gap, by lag over the block's incidents in time order. */
const windowForm = (where: string, seconds: number) =>
  `SELECT round((avg(extract(epoch FROM gap)) / ${seconds})::numeric, 2) AS avg_gap FROM (
     SELECT date - lag(date) OVER (PARTITION BY block ORDER BY date) AS gap FROM crimes ${where}) g WHERE gap IS NOT NULL`;

describe('average gap between consecutive incidents on a block', () => {
  const cases: [string, QueryPlanInput, string, number][] = [
    ['all crimes, in days (the seed paper)', { measure: { kind: 'average_gap', unit: 'day' } }, '', 86_400],
    [
      'burglaries in 2010-2019, in hours (the shape of benchmark h06)',
      {
        measure: { kind: 'average_gap', unit: 'hour' },
        filters: { types: ['BURGLARY'], time: { from: '2010-01-01', to: '2020-01-01' } },
      },
      "WHERE primary_type = 'BURGLARY' AND year BETWEEN 2010 AND 2019",
      3_600,
    ],
    [
      'domestic batteries at night, in hours',
      { measure: { kind: 'average_gap', unit: 'hour' }, filters: { types: ['BATTERY'], domestic: true, hours: { from: 22, to: 6 } } },
      "WHERE primary_type = 'BATTERY' AND domestic AND (extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6)",
      3_600,
    ],
  ];
  it.each(cases)('%s: the GROUP BY form gives the window form exactly', async (_, input, where, seconds) => {
    const compiled = compilePlan(parsePlan(input));
    const everyIncident = where === '';
    expect(compiled.rollup).toBe(everyIncident ? 'crimes_by_block' : undefined);
    expect(compiled.sql).toMatch(everyIncident ? /FROM crimes_by_block/ : /GROUP BY block/);
    expect(compiled.sql).not.toMatch(/lag\(/);
    const got = await value(compiled.sql);
    const gold = await value(windowForm(where, seconds));
    expect(Number(got[Object.keys(got)[0]])).toBeGreaterThan(0);
    expect(got[Object.keys(got)[0]]).toBe(gold.avg_gap);
  });

  it('says what it computed, and cannot be grouped', () => {
    const plan = parsePlan({ measure: { kind: 'average_gap', unit: 'day' }, filters: { types: ['THEFT'] } });
    expect(understoodAs(plan, { areaNames: new Map(), choices: {} }).join(', ')).toMatch(
      /average days between consecutive thefts on the same block/,
    );
    expect(() => compilePlan(parsePlan({ measure: { kind: 'average_gap', unit: 'day' }, groupBy: ['year'] }))).toThrow(PlanCompileError);
  });
});
