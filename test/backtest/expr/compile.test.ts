import { describe, expect, it } from 'vitest';
import { compileExpression, toSignal, type Bars } from '../../../src/backtest/expr/compile.js';
import { ExpressionError } from '../../../src/backtest/expr/parser.js';

const CLOSE = [10, 11, 12, 11, 13, 14];
const OPEN = [9.5, 10.5, 11.5, 12, 11, 13.5];
const bars: Bars = {
  OPEN: Float64Array.from(OPEN),
  CLOSE: Float64Array.from(CLOSE),
  HIGH: Float64Array.from(CLOSE.map((c) => c + 1)),
  LOW: Float64Array.from(CLOSE.map((c) => c - 1)),
  VOLUME: Float64Array.from([100, 200, 0, 400, 500, 600]),
  AMOUNT: Float64Array.from([1, 2, 3, 4, 5, 6]),
  PERCENTAGE_CHANGE: Float64Array.from([0, 10, 9.09, -8.33, 18.18, 7.69]),
};
const values = (src: string) => Array.from(compileExpression(src).evaluate(bars, CLOSE.length), (v) => (Number.isNaN(v) ? null : v));

describe('factor expressions: hand-computed values', () => {
  it('DELAY shifts back, undefined before day 0', () => {
    expect(values('DELAY(CLOSE, 1)')).toEqual([null, 10, 11, 12, 11, 13]);
    expect(values('DELAY(CLOSE,2)')).toEqual([null, null, 10, 11, 12, 11]);
  });

  it('DELTA, SMA/MA/MEAN, SUM over the last n values, current included', () => {
    expect(values('DELTA(DELAY(CLOSE,1), 2)')).toEqual([null, null, null, 2, 0, 1]);
    expect(values('SMA(DELAY(CLOSE,1),3)')).toEqual([null, null, null, 11, 34 / 3, 12]);
    expect(values('MA(DELAY(CLOSE,1),3)')).toEqual(values('MEAN(DELAY(CLOSE,1),3)'));
    expect(values('SUM(OPEN, 2)')).toEqual([null, 20, 22, 23.5, 23, 24.5]);
  });

  it('EMA is recursive with alpha 2/(n+1), seeded with the first defined value', () => {
    // alpha = 0.5: 10, 10.5, 11.25, 11.625 on DELAY(CLOSE,1) = 10, 11, 12, 11 ...
    expect(values('EMA(DELAY(CLOSE,1), 3)')).toEqual([null, 10, 10.5, 11.25, 11.125, 12.0625]);
  });

  it('SMA(X, n, m) is the Chinese recursive average', () => {
    // Y = (1*X + 2*Y_prev)/3 seeded 10 on X = 10, 11, 12: 10, (11 + 20)/3 = 31/3, (12 + 62/3)/3 = 98/9
    const v = values('SMA(DELAY(CLOSE,1), 3, 1)');
    expect(v[1]).toBe(10);
    expect(v[2]).toBeCloseTo(31 / 3, 12);
    expect(v[3]).toBeCloseTo(98 / 9, 12);
  });

  it('STD and VAR are sample (ddof = 1)', () => {
    // DELAY(CLOSE,1) days 1..3 = 10, 11, 12: var 1, std 1
    expect(values('VAR(DELAY(CLOSE,1),3)')[3]).toBe(1);
    expect(values('STD(DELAY(CLOSE,1),3)')[3]).toBe(1);
    // 11, 12, 11: mean 34/3, var ((1/3)^2*2 + (2/3)^2)/2 = 1/3
    expect(values('VAR(DELAY(CLOSE,1),3)')[4]).toBeCloseTo(1 / 3, 12);
  });

  it('TSMAX/HHV, TSMIN/LLV, CUMMAX', () => {
    // DELAY(HIGH,1) = -, 11, 12, 13, 12, 14
    expect(values('HHV(DELAY(HIGH,1),2)')).toEqual([null, null, 12, 13, 13, 14]);
    expect(values('TSMIN(DELAY(LOW,1),3)')).toEqual([null, null, null, 9, 10, 10]);
    expect(values('CUMMAX(DELAY(CLOSE,1))')).toEqual([null, 10, 11, 12, 12, 13]);
  });

  it('LINEARREG_SLOPE against 0..n-1 and SKEW (adjusted Fisher-Pearson)', () => {
    expect(values('LINEARREG_SLOPE(DELAY(CLOSE,1),3)')[3]).toBeCloseTo(1, 12); // 10, 11, 12
    expect(values('LINEARREG_SLOPE(DELAY(CLOSE,1),3)')[4]).toBeCloseTo(0, 12); // 11, 12, 11
    // 11, 12, 11 -> G1 = -1.7320508 (pandas Series([11,12,11]).skew())
    expect(values('SKEW(DELAY(CLOSE,1),3)')[4]).toBeCloseTo(1.7320508075688772, 9);
  });

  it('elementwise functions, arithmetic, comparisons, logic and ?:', () => {
    expect(values('ABS(OPEN - 11)')).toEqual([1.5, 0.5, 0.5, 1, 0, 2.5]);
    expect(values('SIGN(OPEN - 11)')).toEqual([-1, -1, 1, 1, 0, 1]);
    expect(values('MAX(OPEN, DELAY(CLOSE,1))')).toEqual([null, 10.5, 11.5, 12, 11, 13.5]);
    expect(values('OPEN > DELAY(CLOSE,1) && OPEN > 11')).toEqual([null, 0, 1, 0, 0, 1]);
    expect(values('OPEN > 11 OR OPEN < 10')).toEqual([1, 0, 1, 1, 0, 1]);
    expect(values('OPEN > 11 ? 1 : -1')).toEqual([-1, -1, 1, 1, -1, 1]);
    expect(values('-OPEN + 2 * 3')).toEqual(OPEN.map((o) => -o + 6));
  });

  it('division by zero, LOG and SQRT out of domain are undefined, and undefined signals are false', () => {
    expect(values('DELAY(AMOUNT,1) / DELAY(VOLUME,1)')).toEqual([null, 0.01, 0.01, null, 0.01, 0.01]);
    expect(values('LOG(DELAY(VOLUME,1))')[3]).toBeNull();
    expect(values('SQRT(OPEN - 11)')[0]).toBeNull();
    expect(toSignal(compileExpression('DELAY(CLOSE,1) > 10').evaluate(bars, 6))).toEqual([false, false, true, true, true, true]);
  });

  it('the BIAS5 short code of BacktestBench', () => {
    const bias = values('(DELAY(CLOSE,1)-SMA(DELAY(CLOSE,1),5))/SMA(DELAY(CLOSE,1),5)*100');
    // day 5: DELAY(CLOSE,1) = 13; mean of 10, 11, 12, 11, 13 = 11.4
    expect(bias.slice(0, 5)).toEqual([null, null, null, null, null]);
    expect(bias[5]).toBeCloseTo(((13 - 11.4) / 11.4) * 100, 12);
  });
});

describe('factor expressions: checks at compile time', () => {
  const error = (src: string) => {
    try {
      compileExpression(src);
    } catch (e) {
      if (e instanceof ExpressionError) return e.message;
      throw e;
    }
    return 'compiled';
  };

  it("refuses look-ahead: today's close, high, low, volume or amount", () => {
    expect(error('CLOSE > OPEN')).toMatch(/^look-ahead: CLOSE of day t is not known at day t's open .* at position 1/);
    expect(error('SMA(CLOSE, 5) > 0')).toMatch(/^look-ahead: CLOSE .* at position 5/);
    expect(error('DELTA(VOLUME, 1) > 0')).toMatch(/^look-ahead: VOLUME/);
    expect(error('DELAY(HIGH, 0) > 1')).toMatch(/^look-ahead: HIGH/);
    expect(error('DELAY(SMA(CLOSE,5),1) > OPEN')).toBe('compiled');
    expect(error('OPEN / DELAY(CLOSE, 1) - 1')).toBe('compiled');
  });

  it('names the position of syntax errors and unknown names', () => {
    expect(error('SMA(DELAY(CLOSE,1), 5')).toBe(
      'expected ")" but found the end of the expression at position 22: SMA(DELAY(CLOSE,1), 5 >>>',
    );
    expect(error('DELAY(CLOSE,1) $ 2')).toMatch(/^unexpected character "\$" at position 16/);
    expect(error('RSI(DELAY(CLOSE,1),14)')).toMatch(/^unknown function "RSI" .* at position 1/);
    expect(error('DELAY(PRICE,1)')).toMatch(/^unknown field "PRICE"/);
    expect(error('SMA(DELAY(CLOSE,1), 2.5)')).toMatch(/^argument 2 of SMA must be a whole number of at least 1 at position 21/);
    expect(error('STD(DELAY(CLOSE,1), 1)')).toMatch(/^argument 2 of STD must be a whole number of at least 2/);
    expect(error('ABS(OPEN, 2)')).toMatch(/^ABS takes 1 arguments, not 2/);
  });

  it('lists the fields an expression reads', () => {
    expect(compileExpression('DELAY(VOL,1) > SMA(DELAY(VOLUME,1),5) && OPEN > 1').fields.sort()).toEqual(['OPEN', 'VOLUME']);
  });
});
