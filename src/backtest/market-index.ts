// The market index as kept daily in the database (migration 040): per day the sum and count of
// every ticker's close-to-close return, refreshed after each stock load and marked stale by any
// other write to the bars. A run reads the days of its window (a few thousand rows) instead of
// every close of every ticker; when the kept index is stale or cannot be read, the caller
// computes it from the bars (benchmark.ts equalWeightIndex), which gives the same doubles.
import type pg from 'pg';
import { EXCHANGES } from '../ingest/stocks/stock-table.js';
import type { MarketIndex } from './benchmark.js';

/** The index from `first` to `last` (ISO dates, inclusive) when the kept one is current; undefined otherwise. */
export async function keptMarketIndex(client: pg.PoolClient, first: string, last: string): Promise<MarketIndex | undefined> {
  const { rows: state } = await client.query<{ current: boolean | null }>(
    `SELECT CASE WHEN to_regclass('market_index_state') IS NULL OR NOT has_table_privilege('market_index_state', 'SELECT')
                   OR NOT has_table_privilege('market_index_days', 'SELECT') OR NOT has_table_privilege('market_index_tickers', 'SELECT')
                 THEN NULL ELSE (SELECT current FROM market_index_state) END AS current`,
  );
  if (!state[0]?.current) return undefined;
  const { rows } = await client.query<{ day: string; return_sum: number; tickers: number }>(
    `SELECT trade_date::text AS day, return_sum, tickers FROM market_index_days WHERE trade_date BETWEEN $1 AND $2 ORDER BY trade_date`,
    [first, last],
  );
  const returns = new Map<string, number>();
  // the mean as the in-memory index takes it: the sum over the count
  for (const r of rows) returns.set(r.day, Number(r.return_sum) / r.tickers);
  return { returns, members: await members(client, first, last) };
}

/** Tickers with a return in the window: a bar in it after their first one (one index probe per ticker). */
async function members(client: pg.PoolClient, first: string, last: string): Promise<number> {
  const counts = Object.values(EXCHANGES).map(
    (table) =>
      `SELECT count(*) AS n FROM market_index_tickers m WHERE m.exchange = '${table}' AND m.last_date >= $1 AND m.first_date < $2
         AND EXISTS (SELECT 1 FROM ${table} s WHERE s.stock_code = m.stock_code AND s.trade_date > m.first_date AND s.trade_date >= $1 AND s.trade_date <= $2)`,
  );
  const { rows } = await client.query<{ n: string }>(`SELECT sum(n)::text AS n FROM (${counts.join(' UNION ALL ')}) c`, [first, last]);
  return Number(rows[0]?.n ?? 0);
}
