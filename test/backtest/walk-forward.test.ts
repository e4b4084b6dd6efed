// The walk-forward check against a straightforward loop on generated bars:
// each candidate's signals on all the bars, the protocol's execution on the
// first 70% and on the rest, the pick by the in-sample KPI, and the edges.
import { describe, expect, it } from 'vitest';
import { compileExpression, toSignal } from '../../src/backtest/expr/compile.js';
import { computeKpis } from '../../src/backtest/kpis.js';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { planCandidates } from '../../src/backtest/run-spec.js';
import { generatedTicker } from '../helpers/generated-bars.js';
import { checkSpec, conditionCode } from '../../src/backtest/spec.js';
import { simulate } from '../../src/backtest/simulator.js';
import { walkForward } from '../../src/backtest/walk-forward.js';

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

describe('walk-forward', () => {
  it('equals the loop a person would write', () => {
    const { spec } = parseRuleSyntax('600000 buy: RSI(6|14|24) < 40 sell: RSI(6|14|24) > 60 kpi: return walk-forward: 70%');
    expect(spec.walkForward).toBe(0.7);
    for (const seed of [1, 2, 3]) {
      const ticker = generatedTicker(300, seed);
      const plans = planCandidates(spec, [ticker]);
      const w = walkForward(spec, ticker, plans, 0.7, 'return_ratio');
      const k = Math.round(300 * 0.7);
      const byHand = plans.map((p) => {
        const o = { params: [{ factor: 'RSI', param: 'n', value: p.values![0] }] };
        const sig = (c: (typeof spec.strategies)[0]['buy'][0]) =>
          toSignal(compileExpression(conditionCode(c, o)).evaluate(ticker.bars, 300));
        const buy = sig(spec.strategies[0].buy[0]);
        const sell = sig(spec.strategies[0].sell[0]);
        const run = (from: number, to: number) =>
          computeKpis(
            simulate({
              dates: ticker.dates.slice(from, to),
              open: ticker.bars.OPEN!.subarray(from, to),
              close: ticker.bars.CLOSE!.subarray(from, to),
              buy: buy.slice(from, to),
              sell: sell.slice(from, to),
            }),
          ).return_ratio!;
        return { label: p.label, inSample: run(0, k), outOfSample: run(k, 300) };
      });
      expect(w.rows).toEqual(byHand);
      const pick = byHand.reduce((b, r, i) => (r.inSample > byHand[b].inSample ? i : b), 0);
      expect(w.pick).toBe(pick);
      expect(w.inSample).toEqual({ first: ticker.dates[0], last: ticker.dates[k - 1], days: k });
      expect(w.outOfSample).toEqual({ first: ticker.dates[k], last: ticker.dates[299], days: 300 - k });
      const edgeIn = byHand[pick].inSample - median(byHand.map((r) => r.inSample));
      const edgeOut = byHand[pick].outOfSample - median(byHand.map((r) => r.outOfSample));
      expect(w.edgeInSample).toBeCloseTo(edgeIn, 12);
      expect(w.edgeOutOfSample).toBeCloseTo(edgeOut, 12);
      expect(w.survived).toBe(edgeIn > 0 ? edgeOut / edgeIn : null);
    }
  });

  it('is refused where there is nothing to pick, and its share is checked', () => {
    expect(() => parseRuleSyntax('600000 buy: RSI(14) < 30 walk-forward: 95%')).toThrow(
      /walk-forward is the share of the days picked on, 50% to 90%/,
    );
    expect(checkSpec(parseRuleSyntax('600000 buy: RSI(14) < 30 walk-forward: 70%').spec)).toEqual([
      'a walk-forward checks a pick: it needs several parameter values (RSI(6|14|24)) or strategies (A, B) to pick from',
    ]);
  });
});
