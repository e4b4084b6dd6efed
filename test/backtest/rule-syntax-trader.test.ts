// The rule syntax's trader sections: exits, day rules, a portfolio, the
// tearsheet; read exactly, written back the same, refused with what they take;
// short selling refused (long-only).
import { describe, expect, it } from 'vitest';
import { parseRuleSyntax, RuleSyntaxError, looksLikeRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { specToSyntax } from '../../src/backtest/spec-to-syntax.js';
import { checkSpec } from '../../src/backtest/spec.js';

describe('trader sections of the rule syntax', () => {
  it('reads a portfolio with weights, a calendar, a fraction invested and costs, and writes it back', () => {
    const line = 'portfolio 600519,000001,600036 2020..2025 weights: 50,30,20 rebalance: monthly invest: 80% costs: china';
    expect(looksLikeRuleSyntax(line)).toBe(true);
    const { spec, defaults } = parseRuleSyntax(line);
    expect(spec).toMatchObject({
      task: 'metrics',
      tickers: ['600519', '000001', '600036'],
      portfolio: { weights: [50, 30, 20], rebalance: 'monthly', invest: 0.8 },
      costs: 'china',
      tearsheet: true,
    });
    expect(defaults).toContain('no buy rule: every member is held, rebalanced to its weight');
    expect(checkSpec(spec)).toEqual([]);
    expect(parseRuleSyntax(specToSyntax(spec)).spec).toEqual(spec);
  });

  it('reads "the 20 with the highest amount" of the whole market, drift and a stop', () => {
    const { spec } = parseRuleSyntax('portfolio all 2020..2025 top: 20 by amount rebalance: quarterly drift: 5% stop: 8%');
    expect(spec.portfolio).toEqual({ rebalance: 'quarterly', drift: 0.05, invest: 1, top: { n: 20, by: 'AMOUNT', order: 'highest' } });
    expect(spec.exits).toEqual({ stopLoss: 0.08, fill: 'intrabar' });
    expect(checkSpec(spec)).toEqual([]);
    expect(parseRuleSyntax(specToSyntax(spec)).spec).toEqual(spec);
  });

  it('reads exits and day rules on a single run, each only when written', () => {
    const { spec, defaults } = parseRuleSyntax(
      '600519 2021 buy: RSI(14) < 30 sell: RSI(14) > 70 stop: 8% take: 20% trail: 12% exit-fill: next-open volume-cap: 10% limits: on tearsheet: on',
    );
    expect(spec.exits).toEqual({ stopLoss: 0.08, takeProfit: 0.2, trailingStop: 0.12, fill: 'next_open' });
    expect(spec.dayRules).toEqual({ limits: true, volumeCap: 0.1 });
    expect(spec.tearsheet).toBe(true);
    expect(defaults.join(' ')).not.toMatch(/exit-fill/);
    const plain = parseRuleSyntax('600519 2021 buy: RSI(14) < 30 sell: RSI(14) > 70');
    expect(plain.spec).not.toHaveProperty('exits');
    expect(plain.spec).not.toHaveProperty('dayRules');
    expect(plain.spec).not.toHaveProperty('portfolio');
  });

  it('refuses short selling instead of reading it as a long rule', () => {
    expect(() => parseRuleSyntax('600519 2021 buy: RSI(14) > 70 short: RSI(14) > 70 cover: RSI(14) < 30')).toThrow(/long-only/);
  });

  it('says what a bad section takes and where', () => {
    const bad = (line: string) => {
      try {
        parseRuleSyntax(line);
      } catch (e) {
        return e instanceof RuleSyntaxError ? e.message : String(e);
      }
      return 'no error';
    };
    expect(bad('600519 2021 buy: RSI(14) < 30 stop: 150%')).toMatch(/stop: a fraction of the price below 100%/);
    expect(bad('600519 2021 buy: RSI(14) < 30 rebalance: monthly')).toMatch(/belongs to a portfolio/);
    expect(bad('portfolio all 2021 rebalance: monthly')).toMatch(/top: N by FIELD/);
    expect(bad('portfolio 600519,000001 2021 top: 5 by colour')).toMatch(/fields: close, open/);
    expect(checkSpec(parseRuleSyntax('portfolio 600519,000001 2021 weights: 1,2,3 rebalance: monthly').spec)).toEqual([
      '3 weights for 2 tickers; give one weight per ticker',
    ]);
  });
});
