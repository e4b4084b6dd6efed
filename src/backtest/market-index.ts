// The market index as kept daily in the database (migration 040): per day the sum and count of
// every ticker's close-to-close return, refreshed after each stock load and marked stale by any
// other write to the bars. A run reads the days of its window (a few thousand rows) and counts the
// tickers trading in it from each ticker's first and last bar and the gaps in its bars (migration
// 045), instead of reading every close of every ticker; when the kept index is stale or cannot be read, the caller
// computes it from the bars (benchmark.ts equalWeightIndex), which gives the same doubles.
import type pg from 'pg';
import { EXCHANGES } from '../ingest/stocks/stock-table.js';
import type { MarketIndex } from './benchmark.js';

/** The index from `first` to `last` (ISO dates, inclusive) when the kept one is current; undefined otherwise. */
export async function keptMarketIndex(client: pg.PoolClient, first: string, last: string): Promise<MarketIndex | undefined> {
  const { rows: state } = await client.query<{ current: boolean | null }>(
    `SELECT CASE WHEN to_regclass('market_index_state') IS NULL OR NOT has_table_privilege('market_index_state', 'SELECT')
                   OR NOT has_table_privilege('market_index_days', 'SELECT') OR NOT has_table_privilege('market_index_tickers', 'SELECT')
                   OR to_regclass('market_index_gaps') IS NULL OR NOT has_table_privilege('market_index_gaps', 'SELECT')
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

/**
 * Gaps between a ticker's consecutive bars of at least this many calendar days are kept (migration 045): a window
 * of GAP_DAYS - 2 days or more falls inside a gap only if that gap is kept.
 */
const GAP_DAYS = 15;

/**
 * Tickers with a return in the window: a bar in it after their first one. Ticker by ticker, the window starts at the
 * later of `first` and the day after its first bar (lo) and ends at `last`; it holds a bar unless the ticker's last
 * bar is before lo or the window lies inside a gap between two consecutive bars. A window of GAP_DAYS - 2 days or
 * more is judged from the kept gaps alone; a shorter one (a ticker listed in the window's last days, or a window of
 * days) is looked up in the ticker's bars, one index probe each.
 */
async function members(client: pg.PoolClient, first: string, last: string): Promise<number> {
  const probes = Object.values(EXCHANGES)
    .map(
      (table) =>
        `WHEN m.exchange = '${table}' THEN EXISTS (SELECT 1 FROM ${table} s WHERE s.stock_code = m.stock_code AND s.trade_date BETWEEN w.lo AND $2)`,
    )
    .join(' ');
  const { rows } = await client.query<{ n: string }>(
    `SELECT count(*)::text AS n
       FROM market_index_tickers m CROSS JOIN LATERAL (SELECT greatest($1::date, m.first_date + 1) AS lo) w
      WHERE w.lo <= $2 AND m.last_date >= w.lo
        AND NOT EXISTS (SELECT 1 FROM market_index_gaps g
                         WHERE g.exchange = m.exchange AND g.stock_code = m.stock_code AND g.before_date < w.lo AND g.after_date > $2)
        AND CASE WHEN $2::date - w.lo + 2 >= ${GAP_DAYS} THEN true ${probes} END`,
    [first, last],
  );
  return Number(rows[0]?.n ?? 0);
}
