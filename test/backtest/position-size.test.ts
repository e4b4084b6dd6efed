// Position sizing on a single-ticker run ("half the capital", "invest 30%",
// "100,000 yuan per trade"): each entry buys for a fraction of the equity or a
// fixed amount, in whole lots of 100, and the rest stays cash. Shares, cash and
// P&L computed by hand, with and without the A-share costs; the rule syntax and
// the offline reader both read it; without it the protocol's numbers, to the bit.
import { describe, expect, it } from 'vitest';
import { dayOfIso } from '../../src/backtest/days.js';
import { simulateWithRules, type PositionSize } from '../../src/backtest/day-rules.js';
import { chinaModel } from '../../src/backtest/execution-model.js';
import { simulate } from '../../src/backtest/simulator.js';
import { buyAndHold, runSpec, type TickerBars } from '../../src/backtest/run-spec.js';
import { parseRuleSyntax, RuleSyntaxError } from '../../src/backtest/rule-syntax.js';
import { specToSyntax } from '../../src/backtest/spec-to-syntax.js';
import { checkSpec } from '../../src/backtest/spec.js';
import { readOffline } from '../../src/agents/backtest/free-text.js';

// five days of one ticker: a buy on the first open, a sale at the third close, a buy on the fourth open, the end
const DATES = ['2024-03-04', '2024-03-05', '2024-03-06', '2024-03-07', '2024-03-08'];
const OPEN = [12.34, 12.6, 12.9, 12.8, 12.55];
const CLOSE = [12.5, 12.7, 13.04, 12.6, 12.52];
const BUY = [true, false, false, true, false];
const SELL = [false, false, true, false, false];

function run(positionSize: PositionSize | undefined, costs: boolean) {
  return simulateWithRules({
    dates: DATES,
    days: Int32Array.from(DATES, dayOfIso),
    open: OPEN,
    close: CLOSE,
    buy: BUY,
    sell: SELL,
    capital: 1_000_000,
    code: '600000',
    name: 'Bank',
    slippageBps: 0,
    ...(costs ? { model: chinaModel() } : {}),
    ...(positionSize ? { positionSize } : {}),
  });
}

describe('half the capital, by hand', () => {
  it('without costs: whole lots for half the equity at each entry, the rest kept as cash', () => {
    const r = run({ invest: 0.5 }, false);
    // entry 1: 50% of 1,000,000 = 500,000 at 12.34 a share: floor(500,000 / 1,234) = 405 lots = 40,500 shares
    //   cost 40,500 x 12.34 = 499,770; cash 1,000,000 - 499,770 = 500,230
    // sale at 13.04: 40,500 x 13.04 = 528,120; P&L 40,500 x (13.04 - 12.34) = 28,350; cash 1,028,350
    // entry 2: 50% of 1,028,350 = 514,175 at 12.80: floor(514,175 / 1,280) = 401 lots = 40,100 shares, cost 513,280,
    //   cash 515,070; the last close 12.52 sells them for 502,052: P&L 40,100 x (12.52 - 12.80) = -11,228
    expect(r.trades.map((t) => [t.buy_date, t.shares, t.buy_price, t.sell_price, t.forced])).toEqual([
      ['2024-03-04', 40_500, 12.34, 13.04, false],
      ['2024-03-07', 40_100, 12.8, 12.52, true],
    ]);
    expect(r.trades[0].pnl).toBeCloseTo(28_350, 6);
    expect(r.trades[1].pnl).toBeCloseTo(-11_228, 6);
    const equity = [1_000_000, 500_230 + 40_500 * 12.5, 500_230 + 40_500 * 12.7, 1_028_350, 515_070 + 40_100 * 12.6, 1_017_122];
    r.equity.forEach((e, i) => expect(e).toBeCloseTo(equity[i], 6));
  });

  it('with the A-share costs: the half includes the buy fees; each fee to the fen', () => {
    const r = run({ invest: 0.5 }, true);
    // 2024-03: commission 0.025% (at least 5 yuan), transfer fee 0.001%, stamp duty 0.05% on sales
    // entry 1: 500,000 pays for floor(500,000 / (1,234 x 1.00026)) = 405 lots: 40,500 shares for 499,770;
    //   commission 124.94, transfer fee 5.00: 499,899.94 paid; cash 500,100.06
    // sale at 13.04: 528,120; commission 132.03, transfer fee 5.28, stamp duty 264.06: 527,718.63 back
    //   P&L 527,718.63 - 499,899.94 = 27,818.69; cash 1,027,818.69
    // entry 2: half is 513,909.345: floor(513,909.345 / (1,280 x 1.00026)) = 401 lots: 40,100 shares for 513,280;
    //   commission 128.32, transfer fee 5.13: 513,413.45 paid; cash 514,405.24
    // the last close: 502,052; commission 125.51, transfer fee 5.02, stamp duty 251.03: 501,670.44 back
    //   P&L 501,670.44 - 513,413.45 = -11,743.01; cash 1,016,075.68
    expect(r.trades.map((t) => t.shares)).toEqual([40_500, 40_100]);
    expect(r.trades[0].pnl).toBeCloseTo(27_818.69, 6);
    expect(r.trades[1].pnl).toBeCloseTo(-11_743.01, 6);
    const equity = [
      1_000_000,
      500_100.06 + 40_500 * 12.5,
      500_100.06 + 40_500 * 12.7,
      1_027_818.69,
      514_405.24 + 40_100 * 12.6,
      1_016_075.68,
    ];
    r.equity.forEach((e, i) => expect(e).toBeCloseTo(equity[i], 6));
    expect(r.execution).toMatchObject({ commission: 510.8, transferFee: 20.43, stampDuty: 515.09, orders: 4 });
  });

  it('100,000 yuan per trade buys the lots that amount pays for, fees included', () => {
    const r = run({ amount: 100_000 }, true);
    // floor(100,000 / (1,234 x 1.00026)) = 81 lots: 8,100 shares for 99,954, commission 24.99, transfer fee 1.00
    expect(r.trades[0].shares).toBe(8_100);
    expect(r.equity[1]).toBeCloseTo(1_000_000 - 99_979.99 + 8_100 * 12.5, 6);
    // an amount above the cash spends the cash: the protocol's full position
    const big = run({ amount: 5_000_000 }, false);
    expect(big.trades[0].shares).toBe(Math.floor(1_000_000 / 1_234) * 100);
  });

  it('a fraction too small for one lot buys nothing', () => {
    const r = run({ invest: 0.001 }, false);
    // 1,000 yuan does not pay for 100 shares at 12.34
    expect(r.trades).toEqual([]);
    expect(r.equity.every((e) => e === 1_000_000)).toBe(true);
  });
});

describe('position sizing from a request', () => {
  const ticker: TickerBars = {
    code: '600000',
    name: 'Bank',
    dates: DATES,
    bars: {
      OPEN: Float64Array.from(OPEN),
      CLOSE: Float64Array.from(CLOSE),
      HIGH: Float64Array.from(OPEN, (o, i) => Math.max(o, CLOSE[i])),
      LOW: Float64Array.from(OPEN, (o, i) => Math.min(o, CLOSE[i])),
    } as TickerBars['bars'],
  };
  // the buy days (the 1st and 4th) and the sale (the 3rd) as expressions of the open, known at the open
  const RULES = 'buy: {OPEN < 12.5 || (OPEN > 12.7 && OPEN < 12.85)} sell: {OPEN > 12.85 && OPEN < 13}';

  it('the rule syntax reads invest: and amount: on a single run, says so, and runs the hand-computed numbers', () => {
    const { spec, defaults } = parseRuleSyntax(`600000 2024-03 ${RULES} invest: 50% costs: china slippage: 0bps`);
    expect(spec.positionSize).toEqual({ invest: 0.5 });
    expect(spec).not.toHaveProperty('portfolio');
    expect(checkSpec(spec)).toEqual([]);
    expect(defaults.join('\n')).toMatch(
      /position size: each entry buys for 50% of the equity \(all cash when flat\), fees included, in whole lots of 100 shares; the rest stays cash/,
    );
    expect(parseRuleSyntax(specToSyntax(spec)).spec).toEqual(spec);
    const result = runSpec(spec, [ticker]);
    const trades = result.candidates[0].simulation.trades;
    expect(trades.map((t) => t.shares)).toEqual([40_500, 40_100]);
    expect(trades[0].pnl).toBeCloseTo(27_818.69, 6);
    expect(result.candidates[0].simulation.equity.at(-1)).toBeCloseTo(1_016_075.68, 6);
    // buy and hold beside it holds the same half
    expect(buyAndHold(ticker, spec)[1]).toBeCloseTo(1_006_350.06, 6);

    expect(parseRuleSyntax(`600000 2024-03 ${RULES} amount: 100,000`).spec.positionSize).toEqual({ amount: 100_000 });
    expect(() => parseRuleSyntax(`600000 2024-03 ${RULES} invest: 50% amount: 100000`)).toThrow(RuleSyntaxError);
    // the other portfolio sections still need a portfolio
    expect(() => parseRuleSyntax(`600000 2024-03 ${RULES} rebalance: monthly`)).toThrow(/belongs to a portfolio/);
  });

  it('without sizing the run is the protocol engine, to the bit', () => {
    const { spec } = parseRuleSyntax(`600000 2024-03 ${RULES}`);
    expect(spec).not.toHaveProperty('positionSize');
    const protocol = simulate({ dates: DATES, open: OPEN, close: CLOSE, buy: BUY, sell: SELL });
    const sim = runSpec(spec, [ticker]).candidates[0].simulation;
    expect(sim.equity).toEqual(protocol.equity);
    expect(sim.trades).toEqual(protocol.trades);
  });

  it('free text without an LLM reads "half the capital", "invest 30%" and "100,000 yuan per trade"', () => {
    const cases: [string, object][] = [
      ['buy 600519 in 2021 with half the capital when RSI below 30, sell when RSI above 70', { invest: 0.5 }],
      ['invest 30% in 600519 during 2021 when RSI below 30 and sell when RSI above 70', { invest: 0.3 }],
      ['600519 2021 buy when RSI below 30 sell when RSI above 70 with 100,000 yuan per trade', { amount: 100_000 }],
      ['600519 2021 buy when RSI below 30 sell when RSI above 70, 100k per trade', { amount: 100_000 }],
      ['600519 2021 buy when RSI below 30 sell when RSI above 70 using 25% of my capital', { invest: 0.25 }],
    ];
    for (const [text, size] of cases) {
      const r = readOffline(text);
      expect(r.problems, text).toEqual([]);
      expect(r.spec?.positionSize, text).toEqual(size);
      expect(r.assumptions.join('\n'), text).toMatch(/position size: each entry buys for/);
      expect(r.assumptions.join('\n'), text).not.toMatch(/I did not use/);
      expect(r.ruleSyntax, text).toMatch(/ (invest|amount): /);
    }
  });
});
