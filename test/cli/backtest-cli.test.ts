import { afterAll, describe, expect, it } from 'vitest';
import { EXECUTION_MODELS } from '../../src/backtest/execution-model.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const BARS = [
  'date,open,high,low,close,volume',
  '2024-01-02,10,10.6,9.9,10.5,1000',
  '2024-01-03,11,11.6,10.9,11.5,1100',
  '2024-01-04,12,12.6,11.9,12.5,900',
  '2024-01-05,13,13.2,11.9,12,1200',
  '2024-01-08,14,15.1,13.9,15,1500',
].join('\n');

describe('datadesk backtest simulate', () => {
  it('prints KPIs, trades and equity for the hand-checked run', async () => {
    const bars = tmp.file('bars.csv', BARS);
    const signals = tmp.file(
      'signals.csv',
      'date,buy,sell\n2024-01-02,1,1\n2024-01-03,0,true\n2024-01-04,true,0\n2024-01-05,0,1\n2024-01-08,1,0\n',
    );
    const r = await runCli(['backtest', 'simulate', '--bars', bars, '--signals', signals, '--capital', '10000']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.equity).toEqual([10000, 10500, 11500, 11950, 11500, 11500]);
    expect(out.trades).toEqual([
      { buy_date: '2024-01-02', buy_price: 10, sell_date: '2024-01-03', sell_price: 11.5, shares: 1000, pnl: 1500 },
      { buy_date: '2024-01-04', buy_price: 12, sell_date: '2024-01-05', sell_price: 12, shares: 900, pnl: 0 },
    ]);
    expect(Object.keys(out.kpis)).toEqual([
      'return_ratio',
      'max_drawdown',
      'volatility',
      'sharpe_ratio',
      'win_rate',
      'profit_loss_ratio',
      'calmar_ratio',
    ]);
    expect(out.kpis.return_ratio).toBeCloseTo(0.15, 12);
    expect(out.kpis.profit_loss_ratio).toBeNull();
  });

  it('--costs china: the same signals with A-share fees, computed by hand', async () => {
    const bars = tmp.file('bars-costs.csv', BARS);
    const signals = tmp.file(
      'signals-costs.csv',
      'date,buy,sell\n2024-01-02,1,1\n2024-01-03,0,1\n2024-01-04,1,0\n2024-01-05,0,1\n2024-01-08,1,0\n',
    );
    const r = await runCli(['backtest', 'simulate', '--bars', bars, '--signals', signals, '--capital', '10000', '--costs', 'china']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    // every order's 0.025% is under the 5 yuan minimum, so each pays 5
    // 900 at 10 (the 10th lot would not leave room for the fees): 9,000 + 5 + 0.09; sold at 11.50: 10,350 - 5 - 0.10 - 5.18
    // 900 at 12: 10,800 + 5 + 0.11; sold at 12: 10,800 - 5 - 0.11 - 5.40
    expect(out.trades.map((t: { shares: number; pnl: number }) => [t.shares, Math.round(t.pnl * 100) / 100])).toEqual([
      [900, 1334.63],
      [900, -15.62],
    ]);
    expect(out.equity.at(-1)).toBeCloseTo(11319.01, 6);
    expect(out.execution).toMatchObject({
      model: 'china',
      board: 'main board',
      commission: 20,
      transferFee: 0.41,
      stampDuty: 10.58,
      total: 30.99,
      orders: 4,
    });
    const wrong = await runCli(['backtest', 'simulate', '--bars', bars, '--signals', signals, '--costs', 'usa']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("option '--costs <model>' argument 'usa' is invalid. expected none or china");
  });

  it("--costs takes exactly the engine's execution models (the CLI names them itself, to start without loading the engine)", async () => {
    const wrong = await runCli(['backtest', 'simulate', '--bars', 'x.csv', '--signals', 'y.csv', '--costs', 'usa']);
    expect(wrong.stderr).toContain(`expected ${EXECUTION_MODELS.join(' or ')}`);
  });

  it('names the file and line of bad input', async () => {
    const bars = tmp.file('bad-bars.csv', BARS.replace('2024-01-04,12,', '2024-01-04,twelve,'));
    const signals = tmp.file('s2.csv', 'date,buy,sell\n2024-01-02,1,0\n');
    const r = await runCli(['backtest', 'simulate', '--bars', bars, '--signals', signals]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`datadesk: ${bars} line 4: open "twelve" is not a number\n`);
    const unordered = tmp.file('unordered.csv', BARS.replace('2024-01-05', '2024-01-03'));
    const r2 = await runCli(['backtest', 'simulate', '--bars', unordered, '--signals', signals]);
    expect(r2.stderr).toBe(
      `datadesk: ${unordered} line 5: 2024-01-03 does not come after 2024-01-04; bars must be strictly ordered by date\n`,
    );
    const r3 = await runCli(['backtest', 'simulate', '--bars', tmp.file('bars.csv'), '--signals', signals]);
    expect(r3.stderr).toBe(`datadesk: ${signals} has 1 days but the bars file has 5; give one signal row per bar\n`);
  });
});

describe('datadesk backtest factor', () => {
  it('evaluates a short code, null where undefined', async () => {
    const r = await runCli([
      'backtest',
      'factor',
      '--bars',
      tmp.file('bars.csv'),
      '--expr',
      '(DELAY(CLOSE,1)-SMA(DELAY(CLOSE,1),3))/SMA(DELAY(CLOSE,1),3)*100',
    ]);
    const values = JSON.parse(r.stdout).values;
    expect(values.slice(0, 3)).toEqual([null, null, null]);
    // day 3: DELAY(CLOSE,1) = 12.5, mean of 10.5, 11.5, 12.5 = 11.5
    expect(values[3]).toBeCloseTo((1 / 11.5) * 100, 12);
  });

  it('refuses look-ahead with the position', async () => {
    const r = await runCli(['backtest', 'factor', '--bars', tmp.file('bars.csv'), '--expr', 'CLOSE > OPEN']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^datadesk: look-ahead: CLOSE of day t is not known at day t's open .* at position 1: +>>>CLOSE > OPEN\n$/);
  });
});
