// Nothing said is ignored, without an LLM: the trader words a request uses are
// applied (a stop, a trailing stop, a portfolio rebalanced monthly with half the
// capital) or named ("I did not use: ..."); short selling is refused, never
// read as a long buy rule.
import { describe, expect, it } from 'vitest';
import { readOffline } from '../../../src/agents/backtest/free-text.js';

describe('trader words in free text (no LLM)', () => {
  it('refuses "short ... cover when RSI below 30" instead of reading a long buy rule', () => {
    const r = readOffline('short 600519 in 2021 when RSI above 70 and cover when RSI below 30');
    expect(r.spec).toBeUndefined();
    expect(r.problems.join(' ')).toMatch(/long-only/);
    expect(r.refused).toBe(true);
  });

  it('applies a stop-loss and a trailing stop given with their percentages, and says so', () => {
    const r = readOffline('buy 600519 in 2021 when RSI below 30, sell when RSI above 70, stop loss 8%, trailing stop 12%');
    expect(r.problems).toEqual([]);
    expect(r.spec?.exits).toEqual({ stopLoss: 0.08, trailingStop: 0.12, fill: 'intrabar' });
    expect(r.assumptions.join('\n')).toMatch(/exits: stop-loss 8% below the average entry price; trailing stop 12%/);
    expect(r.assumptions.join('\n')).not.toMatch(/I did not use/);
    expect(r.ruleSyntax).toMatch(/stop: 8% trail: 12% exit-fill: intrabar/);
  });

  it('names a trailing stop without a level, and applies half the capital on a single run', () => {
    const r = readOffline('buy 600519 in 2021 with half the capital when RSI below 30 and sell with a trailing stop');
    expect(r.spec?.positionSize).toEqual({ invest: 0.5 });
    const line = r.assumptions.find((a) => a.startsWith('I did not use:'));
    expect(line).toMatch(/trailing stop \(give it as a percentage/);
    expect(line).not.toMatch(/position sizing/);
  });

  it('reads "a portfolio of ... rebalanced monthly with half the capital" as a portfolio, not the best single ticker', () => {
    const r = readOffline('a portfolio of 600519, 000001 and 600036 rebalanced monthly with half the capital over 2021..2023');
    expect(r.problems).toEqual([]);
    expect(r.spec).toMatchObject({
      task: 'metrics',
      tickers: ['600519', '000001', '600036'],
      portfolio: { rebalance: 'monthly', invest: 0.5 },
      tearsheet: true,
    });
    expect(r.assumptions.join('\n')).not.toMatch(/I did not use/);
    expect(r.ruleSyntax).toMatch(/^portfolio 600519,000001,600036 2021\.\.2023 .*rebalance: monthly invest: 50%/);
  });

  it('reads "the 20 stocks with the highest amount ... rebalance quarterly" as the whole market\'s top 20, held', () => {
    const r = readOffline('buy the 20 stocks with the highest amount in 2021 and rebalance quarterly');
    expect(r.problems).toEqual([]);
    expect(r.spec).toMatchObject({
      task: 'metrics',
      tickers: ['*'],
      portfolio: { rebalance: 'quarterly', top: { n: 20, by: 'AMOUNT', order: 'highest' } },
    });
    expect(r.ruleSyntax).toMatch(/^portfolio all 2021 kpi: sharpe top: 20 by amount rebalance: quarterly/);
  });

  it('applies the limit-up and limit-down rules asked for in words, without reading them as a sell rule', () => {
    const r = readOffline('600519 2021 buy when RSI below 30 sell when RSI above 70 with the limit up and limit down rules');
    expect(r.problems).toEqual([]);
    expect(r.spec?.dayRules).toEqual({ limits: true });
    expect(r.ruleSyntax).toMatch(/sell: RSI\(14\) > 70 .*limits: on/);
    expect(r.assumptions.join('\n')).toMatch(/price limits bind by direction/);
  });

  it('runs the rest and names what is not available: leverage, a time stop, adding to a position', () => {
    for (const [text, label] of [
      ['600519 2021 buy when RSI below 30 sell when RSI above 70 with 2x leverage', 'leverage'],
      ['600519 2021 buy when RSI below 30 sell when RSI above 70 on margin', 'leverage'],
      ['600519 2021 buy when RSI below 30 sell when RSI above 70, hold at most 10 days', 'time stop'],
      ['600519 2021 buy when RSI below 30 sell when RSI above 70 and average down', 'adding to a position'],
    ]) {
      const r = readOffline(text);
      expect(r.problems, text).toEqual([]);
      expect(r.ruleSyntax, text).toBe('600519 2021 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe');
      expect(
        r.assumptions.find((a) => a.startsWith('I did not use:')),
        text,
      ).toMatch(new RegExp(`^I did not use: ${label} \\(`));
    }
  });
});
