// A portfolio with stops, T+1 and a volume cap asked through the backtest
// agent against PostgreSQL: one run, its members, rebalances, every rule in
// the assumptions, the tearsheet and one chart; and a single run's tearsheet
// on request. The portfolio's numbers are those of the engine on the same bars.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerBacktest, type BacktestDeps } from '../../../src/agents/backtest/agent.js';
import type { Answer } from '../../../src/core/answer.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadStocks } from '../../helpers/stock-data.js';

let db: TestDatabase;
let deps: BacktestDeps;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadStocks(db.pool, 20);
  deps = { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger() };
});
afterAll(async () => db?.drop());

const result = (a: Answer) => {
  if (a.kind !== 'result') throw new Error(`expected a result, got ${a.kind}: ${JSON.stringify(a)}`);
  return a;
};

describe('a portfolio through the backtest agent', () => {
  it('answers with its members, rebalances, rules in the assumptions, a tearsheet and one chart', async () => {
    const { rows } = await db.pool.query(`SELECT DISTINCT stock_code FROM shanghai_stock_exchange ORDER BY stock_code LIMIT 3`);
    const codes = rows.map((r) => r.stock_code as string);
    const a = result(
      await answerBacktest(
        `portfolio ${codes.join(',')} 2022..2023 weights: 50,30,20 rebalance: monthly stop: 10% volume-cap: 5% costs: china`,
        deps,
      ),
    );
    expect(a.headline).toMatch(/^Portfolio of 3 \(rebalanced monthly, with A-share costs\): Sharpe /);
    const titles = a.extraTables.map((t) => t.title);
    expect(titles).toEqual(
      expect.arrayContaining(['Members', 'Rebalances', 'Tearsheet of portfolio of 3', 'Monthly returns of portfolio of 3']),
    );
    const rebalances = a.extraTables.find((t) => t.title === 'Rebalances')!.table;
    // the first trading day of each of the 24 months
    expect(rebalances.rowCount).toBe(24);
    expect(a.assumptions.join('\n')).toMatch(/exits: stop-loss 10% below the average entry price; filled intrabar/);
    expect(a.assumptions.join('\n')).toMatch(/volume cap: an order fills at most 5% of the day's volume/);
    expect(a.assumptions.join('\n')).toMatch(/portfolio: weights 50 : 30 : 20; rebalanced on the first trading day of each month/);
    expect(a.chart?.series.map((s) => s.name)).toEqual(['Equity (yuan)', 'Drawdown (%)']);
    const monthly = a.extraTables.find((t) => t.title.startsWith('Monthly returns'))!.table;
    expect(monthly.rows.map((r) => r[0])).toEqual(['2022', '2023']);
    // a rerun of the same request gives the same numbers and the same Monte Carlo line
    const again = result(
      await answerBacktest(
        `portfolio ${codes.join(',')} 2022..2023 weights: 50,30,20 rebalance: monthly stop: 10% volume-cap: 5% costs: china`,
        deps,
      ),
    );
    expect(again.narration).toBe(a.narration);
    expect(a.narration).toMatch(/In 1,000 reshuffles of these \d+ trades \(seed 37/);
  });

  it('a single run shows its tearsheet only when asked', async () => {
    const line = '600519 2022..2023 buy: RSI(14) < 40 sell: RSI(14) > 60 trail: 8%';
    const plain = result(await answerBacktest(line, deps));
    expect(plain.extraTables.map((t) => t.title).some((t) => t.startsWith('Tearsheet'))).toBe(false);
    expect(plain.assumptions.join('\n')).toMatch(/trailing stop 8% below the highest close since entry/);
    const withSheet = result(await answerBacktest(`${line} tearsheet: on`, deps));
    expect(withSheet.extraTables.map((t) => t.title)).toEqual(
      expect.arrayContaining(['Tearsheet of 600519', 'Drawdown periods of 600519 (deepest first)']),
    );
  });
});
