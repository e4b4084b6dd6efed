// Judging a result against the gold query's as a person reads them: month names and numbers are the same
// month, and rows are compared in order only when the order was asked for (a ranking, fewest first, a cut).
import { describe, expect, it } from 'vitest';
import { scoreResult } from '../../src/core/result-match.js';
import type { QueryResult } from '../../src/core/result-shape.js';

const result = (columns: string[], rows: (string | number)[][]): QueryResult => ({
  columns,
  rows,
  rowCount: rows.length,
  truncated: false,
});

describe('scoreResult', () => {
  it('a month of the year by name is the same as by number', () => {
    const gold = result(
      ['month', 'n'],
      [
        [1, 10],
        [2, 12],
      ],
    );
    const named = result(
      ['month', 'thefts'],
      [
        ['January', 10],
        ['February', 12],
      ],
    );
    const sql = 'SELECT extract(month FROM date) AS month, count(*) AS n FROM crimes GROUP BY 1 ORDER BY 1';
    expect(scoreResult(sql, gold, named).relaxed).toBe(true);
    expect(
      scoreResult(
        sql,
        gold,
        result(
          ['month', 'n'],
          [
            ['Jan', 10],
            ['Feb', 12],
          ],
        ),
      ).relaxed,
    ).toBe(true);
    // another month, or a count that happens to be 1 and 2, is not
    expect(
      scoreResult(
        sql,
        gold,
        result(
          ['month', 'n'],
          [
            ['January', 10],
            ['March', 12],
          ],
        ),
      ).relaxed,
    ).toBe(false);
    expect(
      scoreResult(
        sql,
        gold,
        result(
          ['month', 'n'],
          [
            ['January', 12],
            ['February', 10],
          ],
        ),
      ).relaxed,
    ).toBe(false);
  });

  it('rows ordered only by their group key are the same answer in any order', () => {
    const gold = result(
      ['district', 'n'],
      [
        [1, 30],
        [2, 50],
        [3, 40],
      ],
    );
    const mostFirst = result(
      ['district', 'n'],
      [
        [2, 50],
        [3, 40],
        [1, 30],
      ],
    );
    for (const sql of [
      'SELECT district, count(*) AS n FROM crimes GROUP BY 1 ORDER BY 1',
      'SELECT district, count(*) AS n FROM crimes WHERE district IS NOT NULL GROUP BY district ORDER BY district',
      'SELECT district AS d, count(*) AS n FROM crimes GROUP BY 1 ORDER BY d ASC',
    ])
      expect(scoreResult(sql, gold, mostFirst).relaxed, sql).toBe(true);
  });

  it('a ranking, a cut or fewest first must come in its order', () => {
    const gold = result(
      ['district', 'n'],
      [
        [2, 50],
        [3, 40],
        [1, 30],
      ],
    );
    const keyOrder = result(
      ['district', 'n'],
      [
        [1, 30],
        [2, 50],
        [3, 40],
      ],
    );
    for (const sql of [
      'SELECT district, count(*) AS n FROM crimes GROUP BY 1 ORDER BY n DESC, district',
      'SELECT district, count(*) AS n FROM crimes GROUP BY 1 ORDER BY 2 DESC',
      'SELECT district, count(*) AS n FROM crimes GROUP BY 1 ORDER BY 1 LIMIT 3',
      'SELECT district, count(*) AS n FROM crimes GROUP BY 1 ORDER BY n',
    ])
      expect(scoreResult(sql, gold, keyOrder).relaxed, sql).toBe(false);
  });
});
