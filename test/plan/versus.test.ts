// Two sides that differ in a type, a location or a place, side by side ("battery per year" then "compare
// with assault"; "in district 7" then "compare with district 11"): read in several wordings, kept by later
// edits, compiled through the rollup choice (the same rows from a rollup as from crimes, and as one scan
// with two FILTERed counts would give), and narrated with both sides named.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { compilePlan } from '../../src/plan/compile.js';
import { narratePlan, understoodAs } from '../../src/plan/narrate.js';
import { parsePlan, type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread } from '../../src/plan/reader.js';
import { crimeDatabase } from '../helpers/crime-data.js';

const { ctx, areas, thread } = threadReader('2025-06-30', { asEdit: false });
const areaNames = new Map([...areas].map(([name, n]) => [n, name]));

describe('reading a comparison with a type, a location or a place', () => {
  it('a type: battery per year beside assault, in several wordings', () => {
    for (const text of ['compare with assault', 'compare it to assaults', 'vs assault', 'and compared with assault?']) {
      const p = thread('battery per year between 2010 and 2015', text);
      expect(p.filters.types, text).toEqual(['BATTERY']);
      expect(p.versus, text).toEqual({ types: ['ASSAULT'] });
      expect(p.groupBy, text).toEqual(['year']);
      expect(p.filters.time?.from, text).toBe('2010-01-01');
    }
  });

  it('a district and a community area: the thread keeps its own, the other is set beside it', () => {
    const d = thread('homicides per year in the last five years', 'in district 7', 'compare with district 11');
    expect(d.filters.districts).toEqual([7]);
    expect(d.versus).toEqual({ districts: [11] });
    const a = thread(
      'motor vehicle thefts in the last three years',
      'per year',
      'now for community area 25',
      'compare with community area 24',
    );
    expect(a.filters.areas).toEqual([25]);
    expect(a.versus).toEqual({ areas: [24] });
    expect(thread('thefts in 2019 in Austin', 'versus West Town').versus).toEqual({ areas: [24] });
  });

  it('a location: apartments beside residences, by hour', () => {
    const p = thread('domestic battery by hour', 'in 2019', 'only in apartments', 'compare with residences');
    expect(p.filters.locations).toEqual(['APARTMENT']);
    expect(p.versus).toEqual({ locations: ['RESIDENCE'] });
    expect(p.groupBy).toEqual(['hour']);
  });

  it('later edits keep both sides; an edit of the slot they differ in ends the comparison', () => {
    const both = thread('battery per year between 2010 and 2015', 'compare with assault', 'only domestic');
    expect(both.filters.domestic).toBe(true);
    expect(both.versus).toEqual({ types: ['ASSAULT'] });
    const allYears = thread(
      'homicides per year in the last five years',
      'in district 7',
      'compare with district 11',
      'over all years instead',
    );
    expect(allYears.filters.time).toBeUndefined();
    expect(allYears.versus).toEqual({ districts: [11] });
    const other = readInThread('what about theft?', both, ctx);
    expect(other.ok && parsePlan(other.plan).versus).toBeFalsy();
    expect(other.notes?.join(' ')).toMatch(/no longer side by side/);
    const periods = readInThread('compare with 2012', both, ctx);
    const compared = periods.ok ? parsePlan(periods.plan) : undefined;
    expect(compared?.compareWith?.from).toBe('2012-01-01');
    expect(compared?.versus).toBeUndefined();
  });

  it('a period comparison stays a period comparison', () => {
    const p = thread('thefts in 2019', 'compare with 2018');
    expect(p.versus).toBeUndefined();
    expect(p.compareWith?.from).toBe('2018-01-01');
  });

  it('says both sides in "understood as" and the headline', () => {
    const p = thread('battery per year between 2010 and 2015', 'compare with assault');
    expect(readInThread('compare with assault', thread('battery per year between 2010 and 2015'), ctx).understood.join(', ')).toMatch(
      /beside assaults/,
    );
    expect(understoodAs(p, { areaNames, choices: {} }).join(', ')).toMatch(/batteries.*beside assaults/i);
    const told = narratePlan(
      p,
      {
        columns: ['year', 'a', 'b'],
        rows: [
          [2010, 5, 7],
          [2011, 7, 7],
        ],
        rowCount: 2,
      },
      { areaNames, choices: {} },
    );
    expect(told.headline).toMatch(/^Batteries by year.*beside assaults$/);
    expect(told.narration).toMatch(
      /Batteries: 12 in all, the most \(7\) in 2011\. Assaults: 14 in all, the most \(7 each, tied\) in 2010 and 2011/,
    );
    // a longer result than the rows kept: no total or peak claimed from the rows kept
    const cut = narratePlan(p, { columns: ['year', 'a', 'b'], rows: [[2010, 5, 7]], rowCount: 2 }, { areaNames, choices: {} });
    expect(cut.narration).toMatch(/2 groups; the table shows the first 1\./);
    expect(cut.narration).not.toMatch(/in all/);
  });
});

const data = crimeDatabase(30_000);
async function rows(sql: string) {
  return (await data.db.reader!.pool.query({ text: sql, rowMode: 'array' })).rows;
}

describe('compiling two sides side by side', () => {
  it('the same rows from the rollups as from crimes, and as two FILTERed counts in one scan', async () => {
    const cases: { plan: QueryPlan; key: string; a: string; b: string; where: string }[] = [
      {
        plan: parsePlan({ measure: { kind: 'count' }, filters: { types: ['BATTERY'] }, groupBy: ['year'], versus: { types: ['ASSAULT'] } }),
        key: 'year',
        a: "primary_type = 'BATTERY'",
        b: "primary_type = 'ASSAULT'",
        where: 'true',
      },
      {
        plan: parsePlan({
          measure: { kind: 'count' },
          filters: { types: ['BATTERY'], domestic: true, locations: ['APARTMENT'] },
          groupBy: ['hour'],
          versus: { locations: ['RESIDENCE'] },
        }),
        key: 'extract(hour FROM date)::int',
        a: "location_description = 'APARTMENT'",
        b: "location_description = 'RESIDENCE'",
        where: "primary_type = 'BATTERY' AND domestic",
      },
      {
        plan: parsePlan({ measure: { kind: 'count' }, filters: { districts: [7] }, groupBy: ['year'], versus: { districts: [11] } }),
        key: 'year',
        a: 'district = 7',
        b: 'district = 11',
        where: 'true',
      },
    ];
    // two of them are held by a rollup (each side the same one), so the rollup choice is what is checked
    expect(cases.map((c) => compilePlan(c.plan).rollup)).toEqual(['crimes_by_year_type', undefined, 'crimes_by_year_district']);
    for (const c of cases) {
      const fast = compilePlan(c.plan);
      const raw = compilePlan(c.plan, {}, { rollups: false });
      const [got, crimes] = [await rows(fast.sql), await rows(raw.sql)];
      expect(got, fast.sql).toEqual(crimes);
      const gold = await rows(
        `SELECT ${c.key} AS k, count(*) FILTER (WHERE ${c.a})::int, count(*) FILTER (WHERE ${c.b})::int FROM crimes WHERE ${c.where} GROUP BY 1 HAVING count(*) FILTER (WHERE ${c.a} OR ${c.b}) > 0 ORDER BY 1`,
      );
      const nonEmpty = got.filter((r) => Number(r[1]) + Number(r[2]) > 0).map((r) => [Number(r[0]), Number(r[1]), Number(r[2])]);
      expect(nonEmpty).toEqual(gold.map((r) => r.map(Number)));
      expect(gold.length).toBeGreaterThan(0);
    }
  });

  it('two shares side by side: the domestic share of assaults beside that of batteries, per year, as psql says', async () => {
    const p = parsePlan({
      measure: { kind: 'share', part: { domestic: true } },
      filters: { types: ['ASSAULT'], time: { from: '2020-01-01', to: '2026-01-01' } },
      groupBy: ['year'],
      versus: { types: ['BATTERY'] },
    });
    const got = await rows(compilePlan(p).sql);
    expect(await rows(compilePlan(p, {}, { rollups: false }).sql)).toEqual(got);
    const share = (t: string) =>
      `round(100.0 * count(*) FILTER (WHERE domestic AND primary_type = '${t}') / nullif(count(*) FILTER (WHERE primary_type = '${t}'), 0), 2)`;
    const gold = await rows(
      `SELECT year, ${share('ASSAULT')}, ${share('BATTERY')} FROM crimes WHERE year BETWEEN 2020 AND 2025 GROUP BY 1 ORDER BY 1`,
    );
    expect(got.map((r) => r.map((v: unknown) => (v === null ? null : Number(v))))).toEqual(
      gold.map((r) => r.map((v: unknown) => (v === null ? null : Number(v)))),
    );
    expect(gold.length).toBeGreaterThan(3);
    // one share beside the other, with no period grouping
    const [[a, b]] = await rows(compilePlan({ ...p, groupBy: [] }).sql);
    expect(Number(a)).toBeLessThan(100);
    expect(Number(b)).toBeGreaterThan(0);
  });

  it('a total of each side, and an honest refusal of what two sides cannot be', async () => {
    const p = parsePlan({ measure: { kind: 'count' }, filters: { types: ['THEFT'] }, versus: { types: ['ROBBERY'] } });
    const [[a, b]] = await rows(compilePlan(p).sql);
    const [[ga, gb]] = await rows(
      "SELECT count(*) FILTER (WHERE primary_type = 'THEFT'), count(*) FILTER (WHERE primary_type = 'ROBBERY') FROM crimes",
    );
    expect([Number(a), Number(b)]).toEqual([Number(ga), Number(gb)]);
    expect(() => compilePlan({ ...p, measure: { kind: 'average_per', per: 'day' } })).toThrow(/counts or shares only/);
    expect(() => compilePlan({ ...p, groupBy: ['district'], top: { n: 3, order: 'desc' } })).toThrow(/plain count/);
  });
});
