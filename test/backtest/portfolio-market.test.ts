// The market beside a portfolio (docs/backtest-definitions.md), checked by hand: two members and a third ticker
// that only feeds the market, four trading days. The portfolio buys 50,000 shares of A at 10 and 25,000 of B at 20
// on the first open and holds them (equity 1,000,000; 1,050,000; 1,155,000; 1,100,000 at the closes). The market's
// days: A +10%, B 0, C +10%; A +10%, B +10%, C 5/5.5 - 1; A 11/12.1 - 1, B 0, C 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest, type BacktestDeps } from '../../src/agents/backtest/agent.js';
import type { PortfolioRun } from '../../src/backtest/run-portfolio.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let deps: BacktestDeps;

const CLOSES: Record<string, number[]> = { '600001': [10, 11, 12.1, 11], '600002': [20, 20, 22, 22], '600003': [5, 5.5, 5, 5] };
const DAYS = ['2023-03-01', '2023-03-02', '2023-03-03', '2023-03-06'];

async function load(closes: Record<string, number[]>): Promise<void> {
  await db.pool.query('TRUNCATE shanghai_stock_exchange');
  const rows = Object.entries(closes).flatMap(([code, cs]) => cs.map((c, i) => [code, DAYS[i], c] as const));
  // the open at the close: the first open buys at the first close
  await db.pool.query(
    `INSERT INTO shanghai_stock_exchange (stock_code, name, short_name, trade_date, opening_price, closing_price, highest_price, lowest_price)
     SELECT c, 'Company ' || c, 'CO' || c, d::date, p, p, p, p FROM unnest($1::text[], $2::text[], $3::float8[]) AS x(c, d, p)`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
  );
  await db.pool.query('REFRESH MATERIALIZED VIEW stock_listings; SELECT market_index_refresh()');
}

beforeAll(async () => {
  db = await createTestDatabase();
  deps = { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger() };
  await load(CLOSES);
});
afterAll(async () => db?.drop());

const REQUEST = 'portfolio 600001,600002 2023-03-01..2023-03-06 rebalance: none';

async function portfolio(request = REQUEST) {
  const outcome = await runBacktest(request, deps);
  if (outcome.answer.kind !== 'result') throw new Error(JSON.stringify(outcome.answer));
  return { answer: outcome.answer, run: outcome.result as PortfolioRun, runId: outcome.runId! };
}

describe('the market beside a portfolio', () => {
  it("gives the market's return over the portfolio's days, the excess return, beta, alpha and the information ratio", async () => {
    const { answer, run } = await portfolio();
    expect(run.portfolio.equity).toEqual([1_000_000, 1_000_000, 1_050_000, 1_155_000, 1_100_000]);
    // by hand (the definitions' formulas, written out below)
    const rs = [0, 0.05, 0.1, 1_100_000 / 1_155_000 - 1];
    const rm = [0, (0.1 + 0 + 0.1) / 3, (0.1 + 0.1 + (5 / 5.5 - 1)) / 3, (11 / 12.1 - 1) / 3];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [ms, mm] = [mean(rs), mean(rm)];
    const beta = rs.reduce((s, r, i) => s + (r - ms) * (rm[i] - mm), 0) / rm.reduce((s, r) => s + (r - mm) ** 2, 0);
    const diff = rs.map((r, i) => r - rm[i]);
    const sd = Math.sqrt(diff.reduce((s, d) => s + (d - mean(diff)) ** 2, 0) / (diff.length - 1));
    const vs = run.market!;
    expect(vs.members).toBe(3);
    expect(vs.marketReturn).toBeCloseTo(1.0666666666666667 * 1.0363636363636364 * 0.9696969696969697 - 1, 12);
    expect(vs.marketReturn).toBeCloseTo(0.071955922865014, 12);
    expect(vs.excessReturn).toBeCloseTo(0.1 - 0.071955922865014, 12);
    expect(vs.beta).toBeCloseTo(beta, 12);
    expect(vs.beta).toBeCloseTo(1.2216242661448, 10);
    expect(vs.alpha).toBeCloseTo((ms - 0.0001 - beta * (mm - 0.0001)) * 252, 12);
    expect(vs.informationRatio).toBeCloseTo((mean(diff) / sd) * Math.sqrt(252), 12);
    expect(vs.informationRatio).toBeCloseTo(3.0703617967323, 10);
    // what the trader reads
    const table = answer.extraTables.find((t) => t.title === 'Portfolio of 2 against the market')!.table;
    expect(table.rows).toEqual([
      ['Return: portfolio', '10.00%'],
      ['Return: market (equal weight, 3 tickers)', '7.20%'],
      ['Excess return over the market', '2.80%'],
      ['Beta', '1.22'],
      ['Alpha (a year)', '85.83%'],
      ['Information ratio', '3.07'],
    ]);
    expect(answer.narration).toContain(
      'Against the market (an equal-weight index of the 3 tickers trading in the window), which returned 7.20% over the same days: excess return 2.80%, beta 1.22',
    );
  });

  it('gives the same doubles when the kept index is stale and the market is computed from the bars', async () => {
    const kept = (await portfolio()).run.market!;
    await db.pool.query('UPDATE market_index_state SET current = false');
    try {
      const fromBars = (await portfolio()).run.market!;
      for (const key of ['marketReturn', 'excessReturn', 'beta', 'alpha', 'informationRatio', 'members'] as const)
        expect(Object.is(fromBars[key], kept[key])).toBe(true);
      expect(fromBars.equity).toEqual(kept.equity);
    } finally {
      await db.pool.query('UPDATE market_index_state SET current = false; SELECT market_index_refresh()');
    }
  });

  it("a change to a ticker that only feeds the market changes the run's id", async () => {
    const before = await portfolio();
    await load({ ...CLOSES, '600003': [5, 5.5, 5, 5.2] });
    try {
      const after = await portfolio();
      expect(after.run.portfolio.equity).toEqual(before.run.portfolio.equity);
      expect(after.run.market!.marketReturn).not.toBe(before.run.market!.marketReturn);
      expect(after.runId).not.toBe(before.runId);
    } finally {
      await load(CLOSES);
    }
  });
});
