import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateBacktests, generateTasks } from '../../src/eval/backtest-eval.js';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { specToSyntax } from '../../src/backtest/spec-to-syntax.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadStocks } from '../helpers/stock-data.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadStocks(db.pool, 12);
});
afterAll(async () => db?.drop());

describe('eval backtest', () => {
  it('generates BacktestBench-style tasks: windows of at least 252 days, 1-4 rules a side, every family', async () => {
    const tasks = await generateTasks(db.pool, 4, 7);
    expect(tasks.map((t) => t.family)).toEqual([
      ...Array(4).fill('metrics'),
      ...Array(4).fill('ticker_selection'),
      ...Array(4).fill('parameter_confirmation'),
      ...Array(4).fill('strategy_selection'),
    ]);
    for (const t of tasks) {
      const { rows } = await db.pool.query(
        `SELECT count(*) AS n FROM (SELECT trade_date FROM shanghai_stock_exchange WHERE stock_code = $1 UNION ALL
           SELECT trade_date FROM shenzhen_stock_exchange WHERE stock_code = $1 UNION ALL SELECT trade_date FROM beijing_stock_exchange WHERE stock_code = $1) x
         WHERE trade_date BETWEEN $2 AND $3`,
        [t.spec.tickers[0], t.spec.start, t.spec.end],
      );
      expect(rows[0].n).toBeGreaterThanOrEqual(252);
      for (const s of t.spec.strategies) {
        expect(s.buy.length).toBeGreaterThanOrEqual(1);
        expect(s.sell.length).toBeLessThanOrEqual(4);
      }
      // the stated task reads back as the same task (the varied parameter's base value aside)
      const back = parseRuleSyntax(t.text).spec;
      expect(specToSyntax(back)).toBe(t.text);
      expect({ ...back, strategies: undefined }).toEqual({ ...t.spec, strategies: undefined });
    }
  });

  it('scores the agent against the engine: the rule syntax path is exact on every family', async () => {
    const report = await evaluateBacktests({ pool: db.pool, statementTimeoutMs: 20_000, logger: createMemoryLogger() }, 3, 3);
    expect(report.outcomes.filter((o) => !o.correct).map((o) => `${o.task.id}: ${o.failure}`)).toEqual([]);
    expect(report.lines).toContain('all | 12 | 12 | 100.0%');
    expect(report.lines).toContain('indicator retrieval: precision 100.0%, recall 100.0%');
  });
});
