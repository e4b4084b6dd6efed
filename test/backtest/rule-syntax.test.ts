import { describe, expect, it } from 'vitest';
import { parseRuleSyntax, RuleSyntaxError } from '../../src/backtest/rule-syntax.js';
import { checkSpec, conditionCode, conditionLabel } from '../../src/backtest/spec.js';

const errorOf = (input: string) => {
  try {
    parseRuleSyntax(input);
  } catch (e) {
    if (e instanceof RuleSyntaxError) return { detail: e.detail, position: e.position };
    throw e;
  }
  return undefined;
};

describe('rule syntax', () => {
  it('parses the metrics example of the issue', () => {
    const { spec, defaults } = parseRuleSyntax(
      '600519 2022-01-01..2023-12-31 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: sharpe',
    );
    expect(spec).toEqual({
      task: 'metrics',
      tickers: ['600519'],
      start: '2022-01-01',
      end: '2023-12-31',
      kpi: 'sharpe_ratio',
      capital: 1_000_000,
      sizing: 'lots',
      costs: 'none',
      strategies: [
        {
          name: 'A',
          buy: [
            { type: 'cross', left: { factor: 'MA', params: { n: 5 } }, direction: 'above', right: { factor: 'MA', params: { n: 20 } } },
          ],
          sell: [{ type: 'compare', left: { factor: 'RSI', params: { n: 14 } }, op: '>', right: 70 }],
        },
      ],
    });
    expect(defaults).toEqual(['sizing: whole lots of 100 shares', 'capital: 1,000,000 yuan']);
    expect(checkSpec(spec)).toEqual([]);
    expect(conditionLabel(spec.strategies[0].buy[0])).toBe('MA(5) crosses above MA(20)');
    expect(conditionCode(spec.strategies[0].buy[0])).toBe(
      '(MA(DELAY(CLOSE,1),5)) > (MA(DELAY(CLOSE,1),20)) && DELAY((MA(DELAY(CLOSE,1),5)),1) <= DELAY((MA(DELAY(CLOSE,1),20)),1)',
    );
  });

  it('parses ticker selection with a year window', () => {
    const { spec } = parseRuleSyntax('compare 000001,600036,601318 2021 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: return');
    expect(spec).toMatchObject({
      task: 'ticker_selection',
      tickers: ['000001', '600036', '601318'],
      start: '2021-01-01',
      end: '2021-12-31',
      kpi: 'return_ratio',
    });
  });

  it('turns a | list of values into parameter confirmation', () => {
    const { spec } = parseRuleSyntax('600519 2020..2022 buy: RSI(6|14|24) < 30 sell: RSI(6|14|24) > 70 kpi: calmar');
    expect(spec).toMatchObject({
      task: 'parameter_confirmation',
      parameter: { factor: 'RSI', param: 'n', candidates: [6, 14, 24] },
      start: '2020-01-01',
      end: '2022-12-31',
    });
    expect(checkSpec(spec)).toEqual([]);
    expect(conditionLabel(spec.strategies[0].buy[0], { params: [{ factor: 'RSI', param: 'n', value: 24 }] })).toBe('RSI(24) < 30');
  });

  it('parses strategies A and B, rule ids, events, raw expressions, options', () => {
    const { spec } = parseRuleSyntax(
      '600519 2024-03..2024-09 strategy A buy: RSI_OVERSOLD and VOL_RATIO(5) > 2 sell: RSI_OVERBOUGHT strategy B buy: MACD_CROSS_UP sell: {DELAY(CLOSE,1) < 0.9 * DELAY(CLOSE,5)} kpi: drawdown capital: 200,000 sizing: shares',
    );
    expect(spec.task).toBe('strategy_selection');
    expect([spec.start, spec.end]).toEqual(['2024-03-01', '2024-09-30']);
    expect(spec.strategies.map((s) => [s.name, s.buy.map((c) => c.type), s.sell.map((c) => c.type)])).toEqual([
      ['A', ['rule', 'compare'], ['rule']],
      ['B', ['event'], ['expression']],
    ]);
    expect([spec.kpi, spec.capital, spec.sizing]).toEqual(['max_drawdown', 200000, 'shares']);
  });

  it('reads costs: china and a slippage in bps; says what is wrong with either', () => {
    const { spec } = parseRuleSyntax('600519 2022..2023 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 costs: china slippage: 5bps');
    expect(spec).toMatchObject({ costs: 'china', slippageBps: 5 });
    expect(parseRuleSyntax('600519 2022 buy: RSI(14) < 30').spec.costs).toBe('none');
    expect(() => parseRuleSyntax('600519 2022 buy: RSI(14) < 30 costs: us')).toThrow(/costs is "china" .* or "none"/);
    expect(() => parseRuleSyntax('600519 2022 buy: RSI(14) < 30 costs: china slippage: lots')).toThrow(
      /slippage is basis points, e.g. "slippage: 5bps"/,
    );
    expect(() => parseRuleSyntax('600519 2022 buy: RSI(14) < 30 slippage: 5bps')).toThrow(/slippage applies to "costs: china" only/);
  });

  it('accepts aliases and named parameters', () => {
    const { spec } = parseRuleSyntax('600519 buy: macd(fast=10, slow=30) > 0 sell: boll > 1');
    expect(spec.strategies[0].buy[0]).toEqual({
      type: 'compare',
      left: { factor: 'MACD_DIF', params: { fast: 10, slow: 30 } },
      op: '>',
      right: 0,
    });
    expect(spec.strategies[0].sell[0]).toMatchObject({ left: { factor: 'BOLL_PCTB' } });
  });

  it('points at the bad token and suggests the closest names', () => {
    expect(errorOf('600519 2021 buy: RSX(14) < 30')).toEqual({ detail: 'unknown factor "RSX"; closest: RSI, PSY, ROC', position: 18 });
    expect(errorOf('600519 2021 buy: RSI(14) << 30')).toEqual({
      detail: 'expected a factor such as RSI(14) or MA(20), found "<"',
      position: 27,
    });
    expect(errorOf('600519 2021 buy: RSI(14) 30')).toEqual({
      detail: 'expected >, <, >=, <= or "crosses above/below" after RSI, found "30"',
      position: 26,
    });
    expect(errorOf('600519 2021 buy: RSI(k=3) < 30')).toEqual({ detail: 'RSI takes the parameters n', position: 22 });
    expect(errorOf('600519 2021 buy: RSI(14) < 30 kpi: alpha')?.detail).toBe(
      'unknown KPI "alpha"; one of: return, drawdown, volatility, sharpe, winrate, plr, calmar',
    );
    expect(errorOf('600519 2021-13-01..2021-12-31 buy: RSI(14) < 30')?.detail).toBe('2021-13-01 is not a real date');
    expect(errorOf('buy: RSI(14) < 30')?.detail).toBe('name a ticker first, e.g. "600519 2022 buy: ..."');
    expect(errorOf('600519 2021 buy: {CLOSE > OPEN}')?.detail).toMatch(/^look-ahead: CLOSE of day t/);
    // two lists are a grid (test/backtest/sweep.test.ts); a third is one too many
    expect(errorOf('600519 buy: RSI(6|14) < 30 sell: MA(5|10) > 1')?.detail).toBeUndefined();
    expect(errorOf('600519 buy: RSI(6|14) < 30 sell: MA(5|10) > 1|2')?.detail).toBe(
      'a sweep varies at most two parameters (RSI.n and MA.n already); fix sell threshold at one value',
    );
    expect(errorOf('600519 buy: RSI(14)')?.detail).toBe('RSI needs a comparison, e.g. RSI > 0');
  });

  it('says what it assumed', () => {
    const { defaults } = parseRuleSyntax('600519 buy: RSI(14) < 30');
    expect(defaults).toEqual([
      'window: all available data',
      'strategy A has no sell rule: it holds until the last day',
      'kpi: sharpe ratio (not given)',
      'sizing: whole lots of 100 shares',
      'capital: 1,000,000 yuan',
    ]);
  });
});
