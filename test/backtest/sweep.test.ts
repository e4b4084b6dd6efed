// Parameter sweeps: the rule syntax's lists and ranges, the grid of two
// parameters, and its runs against a straightforward loop of one-off runs
// (each pair written out as its own metrics request) on generated bars.
import { describe, expect, it } from 'vitest';
import { parseRuleSyntax, RuleSyntaxError } from '../../src/backtest/rule-syntax.js';
import { planCandidates, runSpec, sweepCells } from '../../src/backtest/run-spec.js';
import { checkSpec, MAX_AXIS_VALUES, MAX_SWEEP_RUNS, specFields } from '../../src/backtest/spec.js';
import { specToSyntax } from '../../src/backtest/spec-to-syntax.js';
import { walkForward } from '../../src/backtest/walk-forward.js';
import { generatedTicker } from '../helpers/generated-bars.js';

const parse = (line: string) => parseRuleSyntax(line).spec;

/** The KPIs of one request with no sweep: the loop a person would write around the engine. */
const oneRun = (line: string, seed: number) => {
  const spec = parse(line);
  expect(spec.task).toBe('metrics');
  return runSpec(spec, [generatedTicker(400, seed)]).candidates[0];
};

describe('sweeps in the rule syntax', () => {
  it('reads RSI(6..24 step 2) < 20..40 step 5 as a grid of the period and the buy threshold', () => {
    const spec = parse('600000 buy: RSI(6..24 step 2) < 20..40 step 5 sell: RSI(6..24 step 2) > 70 kpi: sharpe');
    expect(spec.task).toBe('parameter_confirmation');
    expect(spec.parameter).toEqual({ factor: 'RSI', param: 'n', candidates: [6, 8, 10, 12, 14, 16, 18, 20, 22, 24] });
    expect(spec.secondParameter).toEqual({ threshold: { side: 'buy', condition: 0 }, candidates: [20, 25, 30, 35, 40] });
    expect(checkSpec(spec)).toEqual([]);
    expect(sweepCells(spec)).toHaveLength(50);
    expect(planCandidates(spec, [{ code: '600000', name: 'x' }])[7].label).toBe('RSI.n = 8, buy threshold = 30');
  });

  it('takes lists, ranges without a step, and decimal thresholds exactly', () => {
    expect(parse('600000 buy: RSI(14) < 20|25|30 sell: RSI(14) > 70').parameter).toEqual({
      threshold: { side: 'buy', condition: 0 },
      candidates: [20, 25, 30],
    });
    expect(parse('600000 buy: RSI(10..14) < 30').parameter!.candidates).toEqual([10, 11, 12, 13, 14]);
    // 0.1 steps land on 0.3, 0.7, ... exactly, not 0.30000000000000004
    expect(parse('600000 buy: VOL_RATIO(5) > 0.1..0.9 step 0.2').parameter!.candidates).toEqual([0.1, 0.3, 0.5, 0.7, 0.9]);
  });

  it('a list repeated in every term of a factor varies them together; a list in one term varies only that term', () => {
    expect(parse('600000 buy: RSI(6|14|24) < 30 sell: RSI(6|14|24) > 70').parameter).toEqual({
      factor: 'RSI',
      param: 'n',
      candidates: [6, 14, 24],
    });
    const ma = parse('600000 buy: MA(5..20 step 5) crosses above MA(30..60 step 10) sell: RSI(14) > 70');
    expect(ma.parameter).toEqual({
      factor: 'MA',
      param: 'n',
      candidates: [5, 10, 15, 20],
      terms: [{ side: 'buy', condition: 0, operand: 'left' }],
    });
    expect(ma.secondParameter).toMatchObject({ factor: 'MA', candidates: [30, 40, 50, 60], terms: [{ operand: 'right' }] });
    expect(planCandidates(ma, [{ code: '600000', name: 'x' }])[1].label).toBe('1st MA.n = 5, 2nd MA.n = 40');
    const fixed = parse('600000 buy: MA(5|10) crosses above MA(60)');
    expect(fixed.parameter).toMatchObject({ candidates: [5, 10], terms: [{ operand: 'left' }] });
  });

  it('says what is wrong with a sweep it cannot run', () => {
    const error = (line: string) => {
      try {
        parseRuleSyntax(line);
      } catch (e) {
        expect(e).toBeInstanceOf(RuleSyntaxError);
        return (e as RuleSyntaxError).detail;
      }
      throw new Error(`parsed: ${line}`);
    };
    expect(error('600000 buy: RSI(6|14) < 20|30 sell: RSI(6|14) > 60|70')).toBe(
      'a sweep varies at most two parameters (RSI.n and buy threshold already); fix sell threshold at one value',
    );
    expect(error('600000 buy: RSI(6..24 step 0) < 30')).toBe('the step of 6..24 step 0 must be above 0');
    expect(error('600000 buy: RSI(24..6) < 30')).toBe('the range 24..6 must go up (24..6 ends below its start)');
    expect(error('600000 buy: RSI(1..2000) < 30')).toBe('1..2000 is 2,000 values; at most 1,000 (use a larger step)');
    expect(error('600000 buy: RSI(6..9 step 1.5) < 30')).toBe('6..9 step 1.5 gives values that are not whole numbers');
    expect(error('600000 buy: RSI(6|x) < 30')).toMatch(/^"6\|x" is not a whole number/);
    expect(checkSpec(parse('600000 buy: RSI(2..51) < 1..50'))).toEqual([
      `the sweep has 50 × 50 = 2,500 runs; at most ${MAX_SWEEP_RUNS.toLocaleString('en-US')} in one answer (use a larger step)`,
    ]);
    expect(checkSpec(parse('600000 buy: RSI(2..61) < 20|30'))).toEqual([
      `RSI.n has 60 values; a grid takes at most ${MAX_AXIS_VALUES} a side (use a larger step)`,
    ]);
    // one parameter alone may try more values than a heat map could show
    expect(checkSpec(parse('600000 buy: RSI(2..201) < 30'))).toEqual([]);
  });

  it('writes a sweep back as rule syntax that reads as the same spec', () => {
    for (const line of [
      '600000 2021..2022 buy: RSI(6..24 step 2) < 20..40 step 5 sell: RSI(6..24 step 2) > 70 kpi: sharpe',
      '600000 2021 buy: MA(5..20 step 5) crosses above MA(30..60 step 10) sell: RSI(14) > 70 kpi: return costs: china',
      '600000 2021 buy: RSI(6|14|24) < 30 sell: RSI_OVERBOUGHT kpi: calmar walk-forward: 70%',
      '600000 2021 buy: RSI(14) < 20|25|35 sell: RSI(14) > 0.5..1.5 step 0.25',
    ]) {
      const spec = parse(line);
      expect(parse(specToSyntax(spec))).toEqual(spec);
    }
  });
});

describe('a grid of two parameters', () => {
  it('each cell equals the same pair written out as its own request', () => {
    const grid = parse('600000 buy: RSI(6..14 step 4) < 25..45 step 10 sell: RSI(6..14 step 4) > 65 kpi: return');
    for (const seed of [1, 2]) {
      const result = runSpec(grid, [generatedTicker(400, seed)]);
      expect(result.candidates).toHaveLength(9);
      let k = 0;
      for (const n of [6, 10, 14]) {
        for (const t of [25, 35, 45]) {
          const byHand = oneRun(`600000 buy: RSI(${n}) < ${t} sell: RSI(${n}) > 65 kpi: return`, seed);
          const cell = result.candidates[k++];
          expect(cell.values).toEqual([n, t]);
          expect(cell.kpis).toEqual(byHand.kpis);
          expect(cell.simulation.trades).toEqual(byHand.simulation.trades);
          expect(cell.buyRules).toEqual([`RSI(${n}) < ${t}`]);
        }
      }
      expect(result.candidates.some((c) => c.simulation.trades.length > 0)).toBe(true);
    }
  });

  it('a fast and a slow moving average vary apart, each in its own term', () => {
    const grid = parse('600000 buy: MA(5|10) crosses above MA(20|40) sell: RSI(14) > 70 kpi: sharpe');
    const result = runSpec(grid, [generatedTicker(400, 3)]);
    const byHand = [
      [5, 20],
      [5, 40],
      [10, 20],
      [10, 40],
    ].map(([f, s]) => oneRun(`600000 buy: MA(${f}) crosses above MA(${s}) sell: RSI(14) > 70 kpi: sharpe`, 3));
    expect(result.candidates.map((c) => c.kpis)).toEqual(byHand.map((c) => c.kpis));
    expect(result.candidates.map((c) => c.buyRules[0])).toEqual([
      'MA(5) crosses above MA(20)',
      'MA(5) crosses above MA(40)',
      'MA(10) crosses above MA(20)',
      'MA(10) crosses above MA(40)',
    ]);
  });

  it('a varied threshold of a library rule is that rule with the new number', () => {
    const spec = parse('600000 buy: RSI(14) < 30 sell: RSI(14) > 70|80');
    const asRule = { ...spec, strategies: [{ ...spec.strategies[0], sell: [{ type: 'rule' as const, rule: 'RSI_OVERBOUGHT' }] }] };
    expect(checkSpec(asRule)).toEqual([]);
    const ticker = generatedTicker(400, 4);
    expect(runSpec(asRule, [ticker]).candidates.map((c) => c.kpis)).toEqual(runSpec(spec, [ticker]).candidates.map((c) => c.kpis));
    expect(runSpec(asRule, [ticker]).candidates[1].sellRules).toEqual(['RSI(14) > 80']);
  });

  it('a walk-forward picks a pair in sample', () => {
    const spec = parse('600000 buy: RSI(6|14) < 30|40 sell: RSI(6|14) > 70 kpi: return walk-forward: 60%');
    const ticker = generatedTicker(400, 5);
    const w = walkForward(spec, ticker, planCandidates(spec, [ticker]), 0.6, 'return_ratio');
    expect(w.rows.map((r) => r.label)).toEqual([
      'RSI.n = 6, buy threshold = 30',
      'RSI.n = 6, buy threshold = 40',
      'RSI.n = 14, buy threshold = 30',
      'RSI.n = 14, buy threshold = 40',
    ]);
    expect(w.inSample.days).toBe(240);
  });

  it('fetches the fields every value of the sweep reads', () => {
    expect(specFields(parse('600000 buy: VOL_RATIO(5|10) > 1.5 sell: RSI(14) > 70|80')).sort()).toEqual(['CLOSE', 'VOLUME']);
  });
});
