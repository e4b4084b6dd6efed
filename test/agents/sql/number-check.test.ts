// The number check of a model's narration: faithful narrations pass (labels
// with digits, dates, percentages of shares, rounding as shown, changes along
// the rows), and an invented number is caught even in a large result.
import { describe, expect, it } from 'vitest';
import { uncheckedNumbers } from '../../../src/agents/sql/narrator.js';
import type { QueryResult } from '../../../src/core/result-shape.js';

const result = (columns: string[], rows: (string | number | null)[][]): QueryResult => ({
  columns,
  rows,
  rowCount: rows.length,
  truncated: false,
});

describe('uncheckedNumbers', () => {
  it('reads digits inside labels (blocks, dates, case numbers) as labels', () => {
    const r = result(
      ['block', 'day', 'incidents'],
      [
        ['037XX W CERMAK RD', '2001-08-19', 14],
        ['052XX W HURON ST', '2001-08-20', 9],
      ],
    );
    expect(
      uncheckedNumbers('037XX W CERMAK RD had the most, 14 on 2001-08-19; 052XX W HURON ST followed with 9.', r, 'which blocks'),
    ).toEqual([]);
  });

  it('accepts shares written as percentages, rounded as shown, and thousands separators', () => {
    const r = result(
      ['district', 'share', 'matching', 'incidents'],
      [
        [11, 0.1233, 276, 2239],
        [12, 0.0812, 120, 1478],
      ],
    );
    expect(
      uncheckedNumbers(
        'In district 11, 12.33% of 2,239 thefts (276) led to an arrest; in district 12 it was 8.1%.',
        r,
        'arrest share by district',
      ),
    ).toEqual([]);
  });

  it('accepts changes along the rows and between first and last', () => {
    const r = result(
      ['year', 'incidents'],
      [
        [2019, 200],
        [2020, 150],
        [2021, 180],
      ],
    );
    expect(
      uncheckedNumbers('Thefts fell by 50 (25%) from 2019 to 2020, rose 20% in 2021, and ended 10% below 2019.', r, 'thefts by year'),
    ).toEqual([]);
  });

  it('catches an invented number, also in a result of 10,000 rows', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => [`${String(i).padStart(5, '0')}XX S STATE ST`, 10 + (i % 97)]);
    const r = result(['block', 'incidents'], rows);
    expect(uncheckedNumbers('The busiest block had 106 incidents and the quietest 10.', r, 'which blocks')).toEqual([]);
    expect(uncheckedNumbers('The busiest block had 4,321 incidents.', r, 'which blocks')).toEqual([4321]);
    expect(uncheckedNumbers('There were 250 blocks with more than 100 incidents.', r, 'which blocks')).toEqual([250]);
  });

  it('still catches a hallucinated year and percentage on a small result', () => {
    const r = result(['thefts'], [[2239]]);
    expect(uncheckedNumbers('There were 3,473 thefts in 2019, up 12% from 2018.', r, 'how many thefts in 2019')).toEqual([3473, 12, 2018]);
  });
});
