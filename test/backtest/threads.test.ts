// The engine on worker threads and the shared bar cache, against PostgreSQL:
// the threads give runSpec's exact results, the cache follows the data, and
// the event loop keeps turning while a scan runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retrieve } from '../../src/agents/backtest/retrieval.js';
import { barCacheStats, clearBarCache } from '../../src/backtest/bar-cache.js';
import { runSpec, type SpecResult } from '../../src/backtest/run-spec.js';
import { FULL_RUNS, runSpecThreaded } from '../../src/backtest/run-threaded.js';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { destroyWorkerPool } from '../../src/backtest/threads/pool.js';
import { kpiTable } from '../../src/agents/backtest/narrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadStocks } from '../helpers/stock-data.js';

let db: TestDatabase;
const TICKERS = 60; // more than FULL_RUNS candidates: the KPI-only path and the runs fetched after ranking
beforeAll(async () => {
  db = await createTestDatabase();
  await loadStocks(db.pool, TICKERS);
});
afterAll(async () => {
  await destroyWorkerPool();
  await db?.drop();
});

const fieldsOf = (text: string) => (text.includes('VOLUME') ? (['OPEN', 'CLOSE', 'VOLUME'] as const) : (['OPEN', 'CLOSE'] as const));

async function scan(text: string) {
  const { spec } = parseRuleSyntax(text);
  // as the bot runs it: the reader login, in a read-only transaction
  const data = await retrieve(db.reader!.pool, 30_000, spec.tickers, [...fieldsOf(text)], spec.start, spec.end);
  return { spec, data };
}

/** Everything a result says, with each candidate's full run. */
function plain(r: SpecResult) {
  return {
    kpi: r.kpi,
    ranking: r.ranking,
    candidates: r.candidates.map((c) => ({
      label: c.label,
      code: c.ticker.code,
      dates: c.ticker.dates,
      kpis: c.kpis,
      roundTrips: c.roundTrips,
      values: c.values,
      buyRules: c.buyRules,
      sellRules: c.sellRules,
      equity: c.simulation.equity,
      trades: c.simulation.trades,
    })),
  };
}

describe('the engine on worker threads', () => {
  it("a whole-market scan from the shared cache gives runSpec's KPIs, ranking and runs, to the bit", async () => {
    const { spec, data } = await scan(
      'compare all 2021..2024 buy: MA(5) crosses above MA(20) and RSI(14) < 60 sell: RSI(14) > 70 kpi: sharpe',
    );
    expect(data.tickers.length).toBeGreaterThan(FULL_RUNS);
    const threaded = await runSpecThreaded(spec, data.tickers);
    const inThread = runSpec(spec, data.tickers);
    // toEqual treats -0 and 0, NaN and NaN as the same; Object.is on every number does not
    expect(plain(threaded)).toEqual(plain(inThread));
    const bits = (r: SpecResult) => r.candidates.flatMap((c) => [...Object.values(c.kpis), ...c.simulation.equity]);
    const a = bits(threaded);
    const b = bits(inThread);
    expect(a.every((v, i) => Object.is(v, b[i]))).toBe(true);
    expect(threaded.candidates.some((c) => c.simulation.trades.length > 0)).toBe(true);
    // the ranking table keeps every ticker (Download CSV gives them all), the trades counted without making the runs
    const table = kpiTable(threaded);
    expect(table.rows).toHaveLength(data.tickers.length);
    expect(table.rowCount).toBe(data.tickers.length);
    expect(table.rows.map((r) => r.at(-1))).toEqual(threaded.ranking.map((i) => inThread.candidates[i].simulation.trades.length));
  });

  it('with costs: china, a whole-market scan and a cloned-bars run on the threads equal runSpec, and cost more than the protocol', async () => {
    for (const text of [
      'compare all 2021..2024 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: return costs: china',
      '600519 2020..2023 buy: RSI(6|14|24) < 30 sell: RSI(6|14|24) > 70 kpi: sharpe costs: china slippage: 5bps',
    ]) {
      const { spec, data } = await scan(text);
      expect(spec.costs).toBe('china');
      const threaded = await runSpecThreaded(spec, data.tickers);
      const inThread = runSpec(spec, data.tickers);
      expect(plain(threaded)).toEqual(plain(inThread));
      expect(threaded.candidates.map((c) => c.simulation.execution)).toEqual(inThread.candidates.map((c) => c.simulation.execution));
      // every candidate that traded paid something; one whose trades are its zero-cost twin's (same days, same
      // shares: no limit held an order up, the fees cost no lot) ends below it by exactly the fees it paid
      const free = runSpec({ ...spec, costs: 'none' }, data.tickers);
      const traded = inThread.candidates.filter((c) => c.simulation.trades.length > 0);
      expect(traded.length).toBeGreaterThan(0);
      let same = 0;
      for (const c of traded) {
        const x = c.simulation.execution!;
        expect(x.total).toBeGreaterThan(0);
        const twin = free.candidates.find((f) => f.label === c.label)!.simulation;
        const key = (t: { buy_date: string; sell_date: string; shares: number }) => `${t.buy_date}/${t.sell_date}/${t.shares}`;
        if (c.simulation.trades.map(key).join() !== twin.trades.map(key).join() || x.slippageBps) continue;
        same++;
        expect(twin.equity.at(-1)! - c.simulation.equity.at(-1)!).toBeCloseTo(x.total, 6);
      }
      if (spec.task === 'ticker_selection') expect(same).toBeGreaterThan(0);
    }
  });

  it('the other task families (bars cloned to the threads) match runSpec too', async () => {
    for (const text of [
      '600519 2020..2023 buy: RSI(6|14|24) < 30 sell: RSI(6|14|24) > 70 kpi: sharpe',
      '600519 2022 strategy A buy: RSI_OVERSOLD sell: RSI_OVERBOUGHT strategy B buy: MACD_CROSS_UP sell: MACD_CROSS_DOWN kpi: drawdown',
      '000001 2021..2023 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: calmar',
      // a grid of two parameters: both values of each cell reach the threads
      '600519 2020..2023 buy: RSI(6..24 step 6) < 20..40 step 10 sell: RSI(6..24 step 6) > 70 kpi: sharpe',
      '600519 2020..2023 buy: MA(5|10) crosses above MA(20|40|60) sell: RSI(14) > 70 kpi: return costs: china',
    ]) {
      const { spec, data } = await scan(text);
      expect(plain(await runSpecThreaded(spec, data.tickers))).toEqual(plain(runSpec(spec, data.tickers)));
    }
  });

  it('a long list of tickers (bulk fetch, bars cloned, KPIs first and the shown runs after ranking) matches runSpec', async () => {
    const { rows } = await db.pool.query(
      `SELECT stock_code FROM stock_listings WHERE first_date <= '2024-06-01' ORDER BY stock_code LIMIT ${FULL_RUNS + 5}`,
    );
    expect(rows.length).toBe(FULL_RUNS + 5);
    const { spec, data } = await scan(
      `compare ${rows.map((r) => r.stock_code).join(',')} 2024 buy: RSI(14) < 40 sell: RSI(14) > 60 kpi: win`,
    );
    expect(plain(await runSpecThreaded(spec, data.tickers))).toEqual(plain(runSpec(spec, data.tickers)));
  });

  it('a factor error in a thread reaches the caller as the user error it is', async () => {
    const { spec, data } = await scan('600519 2022 buy: RSI(14) < 30');
    const broken = { ...spec, strategies: [{ ...spec.strategies[0], buy: [{ type: 'rule' as const, rule: 'NO_SUCH_RULE' }] }] };
    await expect(runSpecThreaded(broken, data.tickers)).rejects.toMatchObject({
      name: 'UserError',
      message: 'unknown rule "NO_SUCH_RULE"',
    });
  });

  it('keeps the event loop turning while a whole-market scan runs', async () => {
    const { spec, data } = await scan('compare all buy: MA(5) crosses above MA(20) and RSI(14) < 60 sell: RSI(14) > 70 kpi: sharpe');
    // one long scan: the market twenty times over (1,200 candidates of ~1,400 days)
    const market = Array.from({ length: 20 }, () => data.tickers).flat();
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 10);
    const started = performance.now();
    let result: SpecResult;
    try {
      result = await runSpecThreaded(spec, market);
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - started;
    expect(result.candidates).toHaveLength(market.length);
    // on this thread the same work holds the loop from start to end: no tick at all.
    // Thresholds are generous: a shared 2-core machine, other test files running.
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 10 / 5));
    expect(longestGap).toBeLessThan(Math.max(250, elapsed / 2));
  });
});

describe('the shared bar cache', () => {
  const RULES = 'buy: RSI(14) < 40 sell: RSI(14) > 60 kpi: return';
  const closeOn = async (code: string, day: string) =>
    Number(
      (await db.pool.query(`SELECT closing_price FROM shanghai_stock_exchange WHERE stock_code = $1 AND trade_date = $2`, [code, day]))
        .rows[0].closing_price,
    );

  it('serves a second scan from memory, loads a column a factor needs, and reloads a table whose bars changed', async () => {
    clearBarCache();
    await scan(`compare all 2024 ${RULES}`);
    const first = barCacheStats();
    expect(first.loads).toBeGreaterThanOrEqual(1);
    expect(first.tables.every((t) => t.columns.join() === 'OPEN,CLOSE')).toBe(true);

    await scan(`compare all 2023 ${RULES}`);
    expect(barCacheStats()).toMatchObject({ loads: first.loads, hits: first.loads });

    // a factor that reads VOLUME: that column is added, nothing reloaded
    await scan('compare all 2024 buy: {DELAY(VOLUME,1) > MA(DELAY(VOLUME,1),20)} sell: RSI(14) > 60 kpi: return');
    expect(barCacheStats().loads).toBe(first.loads);
    expect(barCacheStats().tables.every((t) => t.columns.includes('VOLUME'))).toBe(true);

    // a corrected price, same rows and dates: the Shanghai table is reloaded and the scan sees it
    const day = '2024-06-03';
    const code = '600519';
    const before = await closeOn(code, day);
    await db.pool.query(`UPDATE shanghai_stock_exchange SET closing_price = closing_price * 2 WHERE stock_code = $1 AND trade_date = $2`, [
      code,
      day,
    ]);
    const { data } = await scan(`compare all 2024 ${RULES}`);
    const after = barCacheStats();
    expect(after.loads).toBe(first.loads + 1);
    const ticker = data.tickers.find((t) => t.code === code)!;
    expect(ticker.bars.CLOSE[ticker.dates.indexOf(day)]).toBe(before * 2);

    // a new day of bars: reloaded again, and the window reaches it
    await db.pool.query(
      `INSERT INTO shanghai_stock_exchange (stock_code, name, trade_date, opening_price, closing_price, highest_price, lowest_price, volume_traded)
       SELECT stock_code, name, DATE '2025-10-09', closing_price, closing_price + 1, closing_price + 2, closing_price - 1, 1000
       FROM shanghai_stock_exchange WHERE stock_code = $1 AND trade_date = '2025-09-30'`,
      [code],
    );
    const late = await scan(`compare all 2025-09-01..2025-12-31 ${RULES}`);
    expect(barCacheStats().loads).toBe(after.loads + 1);
    expect(late.data.tickers.find((t) => t.code === code)!.dates.at(-1)).toBe('2025-10-09');
    expect(late.data.lastDate).toBe('2025-10-09');
  });

  it('gives the same bars as the database, window and all', async () => {
    const { data } = await scan(`compare all 2022-03-01..2022-09-30 ${RULES}`);
    const t = data.tickers.find((x) => x.code === '600036')!;
    const { rows } = await db.pool.query(
      `SELECT trade_date::text AS d, opening_price AS o, closing_price AS c FROM shanghai_stock_exchange
       WHERE stock_code = '600036' AND trade_date BETWEEN '2022-03-01' AND '2022-09-30' ORDER BY trade_date`,
    );
    expect(t.dates).toEqual(rows.map((r) => r.d));
    expect(Array.from(t.bars.OPEN)).toEqual(rows.map((r) => Number(r.o)));
    expect(Array.from(t.bars.CLOSE)).toEqual(rows.map((r) => Number(r.c)));
  });
});
