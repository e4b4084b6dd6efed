// The market index kept daily (migration 040): refreshed after a stock load, marked stale by any other write to the
// bars, and when current the same doubles as the index computed from every close (benchmark.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { equalWeightIndex } from '../../src/backtest/benchmark.js';
import { marketTable } from '../../src/backtest/bar-cache.js';
import { keptMarketIndex } from '../../src/backtest/market-index.js';
import { EXCHANGES } from '../../src/ingest/stocks/stock-table.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadStocks } from '../helpers/stock-data.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

async function inTransaction<T>(work: (client: import('pg').PoolClient) => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    return await work(client);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

const insert = (rows: [string, string, number][]) =>
  db.pool.query(
    `INSERT INTO shanghai_stock_exchange (stock_code, name, short_name, trade_date, opening_price, closing_price, highest_price, lowest_price)
     SELECT c, c, c, d::date, p, p, p, p FROM unnest($1::text[], $2::text[], $3::float8[]) AS x(c, d, p)`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
  );

describe('the market index kept daily', () => {
  it('by hand: two tickers, one suspended a day; each day the mean of the returns of the tickers that traded', async () => {
    // A: 10 -> 11 -> 9.9 (+10%, -10%); B: 20 -> (suspended) -> 21 (+5% on the third day, against its own previous bar)
    await insert([
      ['600001', '2023-03-01', 10],
      ['600001', '2023-03-02', 11],
      ['600001', '2023-03-03', 9.9],
      ['600002', '2023-03-01', 20],
      ['600002', '2023-03-03', 21],
    ]);
    // written by hand: stale until refreshed
    expect(await inTransaction((c) => keptMarketIndex(c, '2023-03-01', '2023-03-03'))).toBeUndefined();
    await db.pool.query('SELECT market_index_refresh()');
    const index = (await inTransaction((c) => keptMarketIndex(c, '2023-03-01', '2023-03-03')))!;
    expect([...index.returns.keys()]).toEqual(['2023-03-02', '2023-03-03']);
    expect(index.returns.get('2023-03-02')).toBeCloseTo(0.1, 12);
    expect(index.returns.get('2023-03-03')).toBeCloseTo((9.9 / 11 - 1 + (21 / 20 - 1)) / 2, 12);
    expect(index.members).toBe(2);
    // a window holding only a ticker's first bar has no return of it
    expect((await inTransaction((c) => keptMarketIndex(c, '2023-03-01', '2023-03-01')))!.members).toBe(0);
    await db.pool.query('TRUNCATE shanghai_stock_exchange');
  });

  it('after a stock load it is current and equals the index computed from every close, to the bit; a correction makes it stale', async () => {
    await loadStocks(db.pool, 20);
    const [first, last] = ['2021-01-01', '2023-06-30'];
    const fromBars = async () =>
      inTransaction(async (c) => {
        const tables = [];
        for (const table of Object.values(EXCHANGES)) {
          const t = await marketTable(c, table, ['CLOSE']);
          if (t.rows) tables.push(t);
        }
        return equalWeightIndex(tables, first, last);
      });
    const kept = await inTransaction((c) => keptMarketIndex(c, first, last));
    expect(kept).toBeDefined();
    // the bot reads bars as the reader login (grants from the SQL allow-list): it reads the kept index too
    const reader = await db.reader!.pool.connect();
    try {
      await reader.query('BEGIN READ ONLY');
      expect([...(await keptMarketIndex(reader, first, last))!.returns]).toEqual([...kept!.returns]);
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
    const computed = await fromBars();
    expect(kept!.members).toBe(computed.members);
    expect([...kept!.returns]).toEqual([...computed.returns]);

    // a corrected close: the kept index is stale (the run computes it from the bars) until the next refresh
    await db.pool.query(
      `UPDATE shanghai_stock_exchange SET closing_price = closing_price * 1.01 WHERE stock_code = '600519' AND trade_date = '2022-03-01'`,
    );
    expect(await inTransaction((c) => keptMarketIndex(c, first, last))).toBeUndefined();
    await db.pool.query('SELECT market_index_refresh()');
    const refreshed = await inTransaction((c) => keptMarketIndex(c, first, last));
    expect([...refreshed!.returns]).toEqual([...(await fromBars()).returns]);
    expect(refreshed!.returns.get('2022-03-01')).not.toBe(kept!.returns.get('2022-03-01'));
  });

  it('an upsert that changes no bar leaves it current', async () => {
    await db.pool.query(`INSERT INTO shanghai_stock_exchange SELECT * FROM shanghai_stock_exchange WHERE false`);
    const { rows } = await db.pool.query('SELECT current FROM market_index_state');
    expect(rows[0].current).toBe(true);
  });

  it('counts the tickers trading in a window as the index from the bars does, over a long suspension and short windows', async () => {
    await db.pool.query(`TRUNCATE ${Object.values(EXCHANGES).join(', ')}`);
    // A trades every weekday of March-April 2023; B trades the first week of March, is suspended, and comes back on
    // 2023-04-17 (a gap of 40 days: kept); C lists on 2023-04-26, near the end
    const weekdays = (from: string, to: string) => {
      const out: string[] = [];
      for (let d = new Date(`${from}T00:00:00Z`); d <= new Date(`${to}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + 1))
        if (d.getUTCDay() % 6 !== 0) out.push(d.toISOString().slice(0, 10));
      return out;
    };
    const rows: [string, string, number][] = [
      ...weekdays('2023-03-01', '2023-04-28').map((d, i): [string, string, number] => ['600001', d, 10 + (i % 7) * 0.1]),
      ...[...weekdays('2023-03-01', '2023-03-07'), ...weekdays('2023-04-17', '2023-04-28')].map((d, i): [string, string, number] => [
        '600002',
        d,
        20 + (i % 5) * 0.2,
      ]),
      ...weekdays('2023-04-26', '2023-04-28').map((d, i): [string, string, number] => ['600003', d, 5 + i * 0.1]),
    ];
    await insert(rows);
    await db.pool.query('SELECT market_index_refresh()');
    const gaps = await db.pool.query('SELECT stock_code, before_date::text AS b, after_date::text AS a FROM market_index_gaps');
    expect(gaps.rows).toEqual([{ stock_code: '600002', b: '2023-03-07', a: '2023-04-17' }]);
    const count = (first: string, last: string) => inTransaction(async (c) => (await keptMarketIndex(c, first, last))!.members);
    // by hand: inside B's suspension only A trades; C's first bar is no return of it
    expect(await count('2023-03-08', '2023-04-14')).toBe(1);
    expect(await count('2023-03-08', '2023-04-17')).toBe(2);
    expect(await count('2023-03-01', '2023-04-26')).toBe(2);
    expect(await count('2023-04-26', '2023-04-26')).toBe(2);
    expect(await count('2023-04-26', '2023-04-27')).toBe(3);
    expect(await count('2023-03-11', '2023-03-12')).toBe(0);
    // every window of these two months, long and short, against the index computed from the bars
    const days = weekdays('2023-03-01', '2023-04-30');
    const fromBars = await inTransaction(async (c) => [await marketTable(c, 'shanghai_stock_exchange', ['CLOSE'])]);
    for (let i = 0; i < days.length; i += 3) {
      for (let j = i; j < days.length; j += 4) {
        expect([days[i], days[j], await count(days[i], days[j])]).toEqual([
          days[i],
          days[j],
          equalWeightIndex(fromBars, days[i], days[j]).members,
        ]);
      }
    }
  });
});
