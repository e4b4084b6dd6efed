// What data the bot has and how recent it is: for the start-up banner, the
// status endpoint and (later) every answer's "data through ..." line.
import type pg from 'pg';
import { ROLLUPS } from './rollups.js';

export interface DataFreshness {
  crimes: { rows: number; earliest: string | null; latest: string | null; synthetic: boolean };
  stocks: { rows: number; latest: string | null; synthetic: boolean };
}

const STOCK_TABLES = ['shanghai_stock_exchange', 'shenzhen_stock_exchange', 'beijing_stock_exchange'];

/**
 * Row count of a table: the planner's estimate on big tables (an exact count of
 * 8.5M rows takes a second), an exact count on small or not yet analysed ones.
 */
async function approximateRows(pool: pg.Pool, table: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = $1::regclass`, [
    table,
  ]);
  if (rows[0].n > 100_000) return rows[0].n;
  const exact = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
  return exact.rows[0].n;
}

/** Every crime, counted exactly from a rollup (16 ms at 8.5M rows; the planner's estimate was 10,000 off after a sync). */
async function crimeCount(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT coalesce(sum(n), 0)::bigint AS n FROM ${ROLLUPS[0].table}`);
  return Number(rows[0].n);
}

export async function dataFreshness(pool: pg.Pool): Promise<DataFreshness> {
  const crimesRows = await crimeCount(pool);
  const stockRows = (await Promise.all(STOCK_TABLES.map((t) => approximateRows(pool, t)))).reduce((a, b) => a + b, 0);
  const { rows } = await pool.query<{ crimes_earliest: string | null; crimes_latest: string | null; stock_latest: string | null }>(`
    SELECT (SELECT to_char(min(date), 'YYYY-MM-DD') FROM crimes) AS crimes_earliest,
           (SELECT to_char(max(date), 'YYYY-MM-DD HH24:MI') FROM crimes) AS crimes_latest,
           greatest(${STOCK_TABLES.map((t) => `(SELECT max(trade_date) FROM ${t})`).join(', ')})::text AS stock_latest`);
  // the demo loader marks what it generated (demo-data.ts): real rows loaded on top do not make it real
  const marks = await pool.query<{ source: string }>(`SELECT source FROM ingest_state WHERE source IN ('demo:crimes', 'demo:stocks')`);
  const synthetic = new Set(marks.rows.map((r) => r.source));
  return {
    crimes: {
      rows: crimesRows,
      earliest: rows[0].crimes_earliest,
      latest: rows[0].crimes_latest,
      synthetic: crimesRows > 0 && synthetic.has('demo:crimes'),
    },
    stocks: { rows: stockRows, latest: rows[0].stock_latest, synthetic: stockRows > 0 && synthetic.has('demo:stocks') },
  };
}

/** Which datasets hold the generated demo set (marked by demo-data.ts); looked up at most every 30 s per pool. */
const syntheticCache = new WeakMap<pg.Pool, { at: number; value: Promise<{ crimes: boolean; stocks: boolean }> }>();

export function syntheticData(pool: pg.Pool): Promise<{ crimes: boolean; stocks: boolean }> {
  const cached = syntheticCache.get(pool);
  if (cached && Date.now() - cached.at < 30_000) return cached.value;
  const value = pool
    .query<{ source: string }>(`SELECT source FROM ingest_state WHERE source IN ('demo:crimes', 'demo:stocks')`)
    .then(({ rows }) => ({ crimes: rows.some((r) => r.source === 'demo:crimes'), stocks: rows.some((r) => r.source === 'demo:stocks') }))
    .catch(() => ({ crimes: false, stocks: false }));
  syntheticCache.set(pool, { at: Date.now(), value });
  return value;
}

export const SYNTHETIC_CRIMES_NOTE = "Demo data: these crimes are generated for trying the bot, not the city's records.";
export const SYNTHETIC_PRICES_NOTE = 'demo data: the company names are real, the prices are generated';
