import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeAnswer, type AnswerInput } from '../../src/core/answer.js';

const result = (rows: unknown[][]): AnswerInput =>
  ({
    kind: 'result',
    route: 'backtest',
    trace: [],
    headline: 'Best ticker by Sharpe',
    narration: 'Best ticker by Sharpe.',
    sql: [],
    table: { columns: ['code', 'name', 'sharpe', 'beat'], rows, rowCount: rows.length, truncated: false },
    assumptions: [],
    notes: [],
  }) as AnswerInput;

// the rule a table cell had as a zod union, to check the plain loop against it
const zodCell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

describe('makeAnswer on a table', () => {
  it('keeps every row and cell of a 5,000-row table as given', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => [String(600000 + i), `Company ${i % 700}`, i / 7, i % 2 === 0 ? true : null]);
    const answer = makeAnswer(result(rows));
    expect(answer.kind === 'result' && answer.table?.rows).toEqual(rows);
  });

  const cells: [string, unknown][] = [
    ['text', 'x'],
    ['a number', -1.5],
    ['zero', 0],
    ['true', true],
    ['null', null],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['undefined', undefined],
    ['an object', { a: 1 }],
    ['an array', [1]],
    ['a bigint', 1n],
    ['a date', new Date(0)],
  ];
  it.each(cells)('takes %s in a cell exactly when the zod cell rule does', (_what, cell) => {
    const accepted = zodCell.safeParse(cell).success;
    const made = () =>
      makeAnswer(
        result([
          ['600519', 'Moutai', 1, true],
          ['600000', 'Pudong', cell, false],
        ]),
      );
    if (accepted) expect(made).not.toThrow();
    else expect(made).toThrow(/table rows must be arrays/);
  });

  it('refuses a row that is not an array and a hole in a row', () => {
    expect(() => makeAnswer(result([{ 0: 'x' } as unknown as unknown[]]))).toThrow(/table rows/);
    // eslint-disable-next-line no-sparse-arrays
    expect(() => makeAnswer(result([['a', , 'c']]))).toThrow(/table rows/);
  });
});
