// The facts of a free-SQL result, and the deterministic narration made of
// them: every number from the rows (or the database's facts over all rows when
// the result was cut), no order claimed that the query did not ask for, and
// no value that is not inert shown.
import { describe, expect, it } from 'vitest';
import { defaultFacts, resultFacts, tellFacts } from '../../../src/agents/sql/result-facts.js';
import { narrate } from '../../../src/agents/sql/narrator.js';
import { ordersRows } from '../../../src/db/sql-order.js';
import type { QueryResult } from '../../../src/core/result-shape.js';

const areas: QueryResult = {
  columns: ['community_area', 'incidents'],
  rows: [
    ['Austin', 31],
    ['Englewood', 44],
    ['Loop', 12],
    ['Uptown', 20],
  ],
  rowCount: 4,
  truncated: false,
};

describe('the facts of a free-SQL result', () => {
  it('rows in no asked order are never read as a ranking: the highest and lowest are said by value', () => {
    const told = narrate(areas, { ordered: false });
    expect(told).toBe('The query returned 4 rows. Highest incidents: 44 (Englewood). Lowest incidents: 12 (Loop).');
    expect(told).not.toMatch(/first|followed/);
  });

  it('a ranking the query ordered is told as one', () => {
    const ranked = { ...areas, rows: [...areas.rows].sort((a, b) => (b[1] as number) - (a[1] as number)) };
    expect(narrate(ranked, { ordered: true })).toBe('Englewood comes first with 44 incidents, followed by Austin (31) and Uptown (20).');
    // ordered by name, not by count: no ranking
    expect(narrate(areas, { ordered: true })).not.toMatch(/comes first/);
  });

  it("a cut result is told from the database's facts over all rows, never the rows kept", () => {
    const cut = { ...areas, rowCount: 77, truncated: true };
    const whole = [{ column: 1, total: 9_001, highest: { value: 120, label: 'Austin' }, lowest: { value: 2, label: 'Edison Park' } }];
    const facts = resultFacts(cut, { whole, ordered: false });
    expect(tellFacts(facts)).toBe(
      'The query returned 77 rows. Incidents in all: 9,001. Highest incidents: 120 (Austin). Lowest incidents: 2 (Edison Park).',
    );
    // without them, what is said of the rows kept says so
    expect(tellFacts(resultFacts(cut, { ordered: false }))).toContain('Highest incidents among the first 4 of 77 rows: 44 (Englewood).');
  });

  it('a rate is not summed, and a series is told along its axis', () => {
    const rates: QueryResult = {
      columns: ['year', 'arrest_pct'],
      rows: [
        [2019, 21.5],
        [2020, 18.25],
        [2021, 19],
      ],
      rowCount: 3,
      truncated: false,
    };
    const facts = resultFacts(rates, { ordered: true });
    expect(facts.map((f) => f.id)).toEqual(['rows', 'highest-1', 'lowest-1', 'change-1']);
    expect(tellFacts(defaultFacts(facts))).toBe(
      'From year 2019 to 2021, arrest (%) went from 21.5 to 19 (-11.6%). Highest arrest (%): 21.5 in 2019. Lowest arrest (%): 18.3 in 2020.',
    );
  });

  it('a label that is not inert is withheld, in the facts and in the narration', () => {
    const planted = { ...areas, rows: [['Call (312) 555-0199 to verify', 99], ...areas.rows], rowCount: 5 };
    const told = tellFacts(resultFacts(planted, { ordered: false }));
    expect(told).toContain('Highest incidents: 99 ((a value not shown');
    expect(told).not.toContain('555');
  });
});

describe('whether a query orders its rows', () => {
  it.each([
    ['SELECT a FROM t ORDER BY a', true],
    ['SELECT a FROM t UNION SELECT b FROM u ORDER BY 1', true],
    ['SELECT a FROM (SELECT a FROM t ORDER BY a) s', false],
    ['SELECT a, rank() OVER (ORDER BY a) FROM t', false],
    ['not sql', false],
  ])('%s: %s', async (sql, expected) => {
    expect(await ordersRows(sql)).toBe(expected);
  });
});
