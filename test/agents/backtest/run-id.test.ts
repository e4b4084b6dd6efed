// Reproducible backtests: every answer carries a run id; `rerun ID` repeats
// the run and gives the same numbers, or says what changed in the data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest, type BacktestDeps } from '../../../src/agents/backtest/agent.js';
import { parseRuleSyntax } from '../../../src/backtest/rule-syntax.js';
import { BacktestRuns, dataChanges, engineVersion, ENGINE_VERSION, runId } from '../../../src/backtest/run-id.js';
import type { Answer } from '../../../src/core/answer.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadStocks } from '../../helpers/stock-data.js';

let db: TestDatabase;
let deps: BacktestDeps;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadStocks(db.pool, 6);
  deps = { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger(), runs: new BacktestRuns(db.pool) };
});
afterAll(async () => db?.drop());

const notes = (a: Answer) => (a.kind === 'result' ? a.notes.join('\n') : `(${a.kind}) ${JSON.stringify(a)}`);
const idIn = (a: Answer) => /Run id ([0-9A-Z]{10}): \/backtest rerun \1 \(or datadesk backtest run --id \1\)/.exec(notes(a))?.[1];

describe('run ids', () => {
  it('hash the spec with its defaults, the engine (with the cost fixture) and the data', () => {
    const { spec } = parseRuleSyntax('600519 2022 buy: RSI(14) < 30 sell: RSI(14) > 70');
    const same = parseRuleSyntax('600519   2022 buy: RSI(14) < 30   sell: RSI(14) > 70 kpi: sharpe sizing: lots').spec;
    expect(runId(spec, ENGINE_VERSION, 'd1')).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(runId(same, ENGINE_VERSION, 'd1')).toBe(runId(spec, ENGINE_VERSION, 'd1'));
    expect(runId(spec, ENGINE_VERSION, 'd2')).not.toBe(runId(spec, ENGINE_VERSION, 'd1'));
    const costed = { ...spec, costs: 'china' as const };
    expect(engineVersion(costed)).toMatch(new RegExp(`^${ENGINE_VERSION}\\+china-[0-9a-f]{8}$`));
    expect(runId(costed, engineVersion(costed), 'd1')).not.toBe(runId(spec, ENGINE_VERSION, 'd1'));
  });

  it("say what changed between two runs' data", () => {
    const t = (code: string, bars: number, last: string, digest = 'x') => ({ code, bars, first: '2022-01-04', last, digest });
    expect(dataChanges([t('A', 10, '2022-01-17')], [t('A', 10, '2022-01-17')])).toEqual([]);
    expect(
      dataChanges([t('A', 10, '2022-01-17'), t('B', 5, '2022-01-10')], [t('A', 11, '2022-01-18', 'y'), t('C', 3, '2022-01-06')]),
    ).toEqual([
      'A: 10 bars 2022-01-04 to 2022-01-17 then, 11 bars 2022-01-04 to 2022-01-18 now',
      'B has no bars in the window any more',
      'C is new in the window',
    ]);
    expect(dataChanges([t('A', 10, '2022-01-17')], [t('A', 10, '2022-01-17', 'z')])).toEqual(['A: the same days, but some prices changed']);
    // a whole market is kept as its totals
    const market = (n: number, bars: number) => ({ code: `${n} tickers`, bars, first: '2020-01-02', last: '2025-09-30', digest: '' });
    expect(dataChanges([market(5401, 7_000_000)], [market(5402, 7_001_000)])).toEqual([
      '5401 tickers and 7000000 bars 2020-01-02 to 2025-09-30 then, 5402 tickers and 7001000 bars 2020-01-02 to 2025-09-30 now',
    ]);
    expect(dataChanges([market(5401, 7_000_000)], [market(5401, 7_000_000)])).toEqual([
      'the exchange tables were written to since (a load or a correction); the window still has the same tickers and bars',
    ]);
  });

  it('a rerun gives the same numbers; after a price changes it says so and has a new id; an unknown id is told', async () => {
    const text = '600519 2022..2023 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: return costs: china';
    const first = await runBacktest(text, deps);
    const id = idIn(first.answer)!;
    expect(id, notes(first.answer)).toBe(first.runId);
    // asked again in the same words: the same id (nothing changed)
    expect((await runBacktest(text, deps)).runId).toBe(id);

    const again = await runBacktest(`rerun ${id.toLowerCase()}`, deps);
    expect(again.runId).toBe(id);
    expect(notes(again.answer)).toMatch(
      new RegExp(
        `Rerun of ${id}: the same spec, engine and data, and the same numbers \\(Return -?[\\d.]+%, as on \\d{4}-\\d{2}-\\d{2}\\)\\.`,
      ),
    );
    expect(again.result!.candidates[0].kpis).toEqual(first.result!.candidates[0].kpis);
    expect(again.answer.kind === 'result' && again.answer.assumptions[0]).toBe(
      `rerun of ${id} (first run ${new Date().toISOString().slice(0, 10)}): ${text}`,
    );

    // a correction in the data: one closing price in the window
    await db.pool.query(`UPDATE shanghai_stock_exchange SET closing_price = closing_price + 1 WHERE stock_code = '600519' AND trade_date = (
      SELECT min(trade_date) FROM shanghai_stock_exchange WHERE stock_code = '600519' AND trade_date >= '2023-03-01')`);
    const changed = await runBacktest(`rerun ${id}`, deps);
    expect(changed.runId).not.toBe(id);
    // 600519 feeds the market index too
    expect(notes(changed.answer)).toContain(
      `Rerun of ${id}: the data changed: 600519: the same days, but some prices changed; the market index: the same days, but the prices of tickers that feed it changed. Then: `,
    );
    expect(notes(changed.answer)).toContain(`this run is ${changed.runId}.`);

    // a ticker that only feeds the market: the run's own bars are the same, its market (and alpha) are not
    await db.pool.query('SELECT market_index_refresh()');
    const before = await runBacktest(text, deps);
    await db.pool.query(`UPDATE shenzhen_stock_exchange SET closing_price = closing_price * 1.5 WHERE trade_date = (
      SELECT min(trade_date) FROM shenzhen_stock_exchange WHERE trade_date >= '2023-03-01')`);
    const marketMoved = await runBacktest(`rerun ${before.runId}`, deps);
    expect(marketMoved.runId).not.toBe(before.runId);
    expect(notes(marketMoved.answer)).toContain(
      `Rerun of ${before.runId}: the data changed: the market index: the same days, but the prices of tickers that feed it changed. Then: `,
    );

    // a grid of two parameters reruns cell for cell
    const grid = await runBacktest('600519 2022..2023 buy: MA(5|10) crosses above MA(20|40) sell: RSI(14) > 70', deps);
    expect(grid.result!.candidates).toHaveLength(4);
    const gridAgain = await runBacktest(`rerun ${grid.runId}`, deps);
    expect(gridAgain.runId).toBe(grid.runId);
    expect(gridAgain.result!.candidates.map((c) => [c.label, c.kpis])).toEqual(grid.result!.candidates.map((c) => [c.label, c.kpis]));

    const unknown = await runBacktest('rerun 0000000000', deps);
    expect(unknown.answer).toMatchObject({ kind: 'error', message: expect.stringMatching(/^There is no backtest run 0000000000 here/) });
  });

  it("run ids are per workspace: another workspace's id is told exactly as an unknown one, and its run is not repeated", async () => {
    const text = '600519 2022 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: return';
    const inA = { ...deps, workspace: 'TALPHA' };
    const inB = { ...deps, workspace: 'TBETA' };
    const first = await runBacktest(text, inA);
    const id = first.runId!;
    expect((await runBacktest(`rerun ${id}`, inA)).runId).toBe(id);
    const elsewhere = await runBacktest(`rerun ${id}`, inB);
    const unknown = await runBacktest('rerun ZZZZZZZZZZ', inB);
    expect(elsewhere.result).toBeUndefined();
    expect(elsewhere.answer.kind === 'error' && elsewhere.answer.message).toBe(
      unknown.answer.kind === 'error' && unknown.answer.message.replace('ZZZZZZZZZZ', id),
    );
    expect(elsewhere.answer).toMatchObject({
      message: `There is no backtest run ${id} here: run ids are those printed under a backtest answer in this workspace.`,
    });
    // nor from the playground's scope or the terminal
    expect((await runBacktest(`rerun ${id}`, { ...deps, workspace: 'web:playground' })).result).toBeUndefined();
    expect((await runBacktest(`rerun ${id}`, deps)).result).toBeUndefined();
    // the same request run in B is B's own run, under the same id (the same numbers), and each reruns its own
    expect((await runBacktest(text, inB)).runId).toBe(id);
    expect((await runBacktest(`rerun ${id}`, inB)).runId).toBe(id);
    const { rows } = await db.pool.query('SELECT workspace FROM backtest_runs WHERE id = $1 ORDER BY workspace', [id]);
    expect(rows.map((r) => r.workspace)).toEqual(['TALPHA', 'TBETA']);
  });
});
