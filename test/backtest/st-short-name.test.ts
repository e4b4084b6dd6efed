// The ST price limit (5%) is read from the exchange's short name, where the data marks ST, with a case-sensitive
// pattern: a company whose full name says nothing of ST but whose short name is "ST ..." trades at +-5%, and a
// company called "Star Lake Bioscience" is not an ST name.
import { describe, expect, it } from 'vitest';
import { chinaModel } from '../../src/backtest/execution-model.js';
import { runSpec, type TickerBars } from '../../src/backtest/run-spec.js';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import type { Bars } from '../../src/backtest/expr/compile.js';

describe('ST names', () => {
  it('ST, *ST and S*ST in capitals are ST; "Star Lake Bioscience" and "st alpha" are not', () => {
    const board = (name: string) => chinaModel().rulesFor('600001', name).board;
    expect(board('ST Alpha')).toBe('main board (ST)');
    expect(board('*ST Alpha')).toBe('main board (ST)');
    expect(board('S*ST Alpha')).toBe('main board (ST)');
    expect(board('Star Lake Bioscience')).toBe('main board');
    expect(board('st alpha')).toBe('main board');
  });

  // bought at the open of day 0 at 10.00; a sell every day; day 1 closes at 9.50: the limit-down price at 5% (10 x 0.95),
  // inside a 10% limit; day 2 closes at 9.60
  const dates = ['2023-03-01', '2023-03-02', '2023-03-03', '2023-03-06'];
  const bars = { OPEN: Float64Array.from([10, 9.8, 9.6, 9.7]), CLOSE: Float64Array.from([10, 9.5, 9.6, 9.7]) } as Bars;
  const spec = parseRuleSyntax('600001 2023 buy: {OPEN > 0} sell: {OPEN > 0} costs: china').spec;
  const firstSale = (t: Omit<TickerBars, 'dates' | 'bars'>) => {
    const best = runSpec(spec, [{ ...t, dates, bars }]).candidates[0];
    return { board: best.simulation.execution!.board, sold: best.simulation.trades[0].sell_date, at: best.simulation.trades[0].sell_price };
  };

  it('the short name decides: a full name without ST and a short name "ST Alpha" waits a day at the 5% limit-down close', () => {
    expect(firstSale({ code: '600001', name: 'Alpha Holdings Co., Ltd.', shortName: 'ST Alpha' })).toEqual({
      board: 'main board (ST)',
      sold: '2023-03-03',
      at: 9.6,
    });
  });

  it('"Star Lake Bioscience" (short name "Star Lake") keeps the 10% limit: the sale fills at 9.50 on day 1', () => {
    expect(firstSale({ code: '600001', name: 'Star Lake Bioscience Co., Ltd.', shortName: 'Star Lake' })).toEqual({
      board: 'main board',
      sold: '2023-03-02',
      at: 9.5,
    });
  });
});
