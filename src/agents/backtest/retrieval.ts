// Data retrieval for a strategy spec: tickers by code or company name, then
// the daily bars of the window, only the columns the factors read. Runs as
// datadesk_reader in a read-only transaction; the SQL is shown in the answer.
// A whole-market scan ("compare all") reads the shared columnar cache
// (backtest/bar-cache.ts) instead, which reloads a table only when its data changed.
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { UserError } from '../../core/errors.js';
import type { TickerBars } from '../../backtest/run-spec.js';
import type { Bars } from '../../backtest/expr/compile.js';
import type { Field } from '../../backtest/expr/parser.js';
import { withReadOnly } from '../../db/read-only.js';
import { ALL_TICKERS } from '../../backtest/spec.js';
import { BAR_COLUMN, cachedTicker, firstDay, lastDay, marketTable, tickerRows } from '../../backtest/bar-cache.js';
import { equalWeightIndex, type MarketIndex } from '../../backtest/benchmark.js';
import { keptMarketIndex } from '../../backtest/market-index.js';
import { EXCHANGES } from '../../ingest/stocks/stock-table.js';
import { shownValue } from '../../core/inert-text.js';

export interface Listing {
  code: string;
  name: string;
  /** the exchange's short name: where ST and *ST are marked (the price limits read it) */
  shortName: string | null;
  exchange: string;
  firstDate: string;
  lastDate: string;
}

const COLUMN = BAR_COLUMN;

/** Too few bars for a meaningful backtest: most factors need a few weeks of history. */
const MIN_BARS = 2;

const listingColumns = `stock_code AS code, name, short_name AS "shortName", exchange, first_date::text AS "firstDate", last_date::text AS "lastDate"`;

export async function resolveTickers(client: pg.PoolClient, wanted: string[]): Promise<Listing[]> {
  const out: Listing[] = [];
  if (wanted.length === 1 && wanted[0] === ALL_TICKERS) {
    const { rows } = await client.query<Listing>(`SELECT ${listingColumns} FROM stock_listings ORDER BY stock_code`);
    if (!rows.length) throw new UserError('There are no stock bars in the database yet.');
    return rows;
  }
  for (const raw of wanted) {
    const text = raw.trim();
    if (/^\d{6}$/.test(text)) {
      const { rows } = await client.query<Listing>(`SELECT ${listingColumns} FROM stock_listings WHERE stock_code = $1`, [text]);
      if (!rows.length)
        throw new UserError(`Unknown ticker ${text}: no bars for that code on the Shanghai, Shenzhen or Beijing exchange in our data.`);
      out.push(rows[0]);
      continue;
    }
    const exact = await client.query<Listing>(
      `SELECT ${listingColumns} FROM stock_listings WHERE lower(name) = lower($1) OR lower(short_name) = lower($1)`,
      [text],
    );
    const rows = exact.rows.length
      ? exact.rows
      : (
          await client.query<Listing>(
            `SELECT ${listingColumns} FROM stock_listings WHERE name ILIKE '%' || $1 || '%' OR short_name ILIKE '%' || $1 || '%' ORDER BY stock_code LIMIT 6`,
            [text.replace(/[%_\\]/g, '\\$&')],
          )
        ).rows;
    if (rows.length === 0)
      throw new UserError(`Unknown ticker "${shownValue(text)}": no company by that name or code. Use the 6-digit code, e.g. 600519.`);
    if (rows.length > 1) {
      throw new UserError(
        `"${shownValue(text)}" matches several companies: ${rows
          .slice(0, 5)
          .map((r) => `${r.code} ${r.name}`)
          .join('; ')}. Which one? Use its code.`,
      );
    }
    out.push(rows[0]);
  }
  return out;
}

const shortNameOf = (l: Listing): { shortName?: string } => (l.shortName ? { shortName: l.shortName } : {});

/** The bars query for display, with the literal values a reader can run as is. */
function barsSql(listing: Listing, fields: Field[], start?: string, end?: string): string {
  const cols = ['trade_date', ...fields.map((f) => COLUMN[f])].join(', ');
  const window = [start ? `trade_date >= '${start}'` : '', end ? `trade_date <= '${end}'` : ''].filter(Boolean);
  return `SELECT ${cols}\nFROM ${listing.exchange}\nWHERE stock_code = '${listing.code}'${window.map((w) => `\n  AND ${w}`).join('')}\nORDER BY trade_date`;
}

function barsSqlMany(exchange: string, fields: Field[], start?: string, end?: string): string {
  const cols = ['stock_code', 'trade_date', ...fields.map((f) => COLUMN[f])].join(', ');
  const window = [start ? `trade_date >= '${start}'` : '', end ? `trade_date <= '${end}'` : ''].filter(Boolean);
  return `SELECT ${cols}\nFROM ${exchange}${window.length ? `\nWHERE ${window.join('\n  AND ')}` : ''}\nORDER BY stock_code, trade_date`;
}

export async function fetchBars(
  client: pg.PoolClient,
  listing: Listing,
  fields: Field[],
  start?: string,
  end?: string,
): Promise<TickerBars> {
  const cols = ['trade_date::text AS trade_date', ...fields.map((f) => `${COLUMN[f]} AS "${f}"`)].join(', ');
  const { rows } = await client.query<Record<string, string | number>>(
    `SELECT ${cols} FROM ${listing.exchange} WHERE stock_code = $1
       AND ($2::date IS NULL OR trade_date >= $2) AND ($3::date IS NULL OR trade_date <= $3) ORDER BY trade_date`,
    [listing.code, start ?? null, end ?? null],
  );
  return toTickerBars(listing, rows, fields, start, end);
}

function toTickerBars(
  listing: Listing,
  rows: Record<string, string | number>[],
  fields: Field[],
  start?: string,
  end?: string,
): TickerBars {
  const window = `${start ?? listing.firstDate} to ${end ?? listing.lastDate}`;
  if (rows.length === 0) {
    throw new UserError(
      `${listing.code} ${listing.name} has no trading days from ${window} (its data covers ${listing.firstDate} to ${listing.lastDate}).`,
    );
  }
  if (rows.length < MIN_BARS) {
    throw new UserError(`${listing.code} ${listing.name} has only ${rows.length} trading day from ${window}: too few to backtest.`);
  }
  const n = rows.length;
  const bars = {} as Bars;
  for (const f of fields) {
    const col = new Float64Array(n);
    for (let i = 0; i < n; i++) col[i] = rows[i][f] === null ? NaN : Number(rows[i][f]);
    bars[f] = col;
  }
  return { code: listing.code, name: listing.name, ...shortNameOf(listing), dates: rows.map((r) => String(r.trade_date)), bars };
}

/**
 * Bars of many tickers in one query per exchange table (ticker selection over a
 * whole market): the primary key (stock_code, trade_date) serves each range.
 */
export async function fetchManyBars(
  client: pg.PoolClient,
  listings: Listing[],
  fields: Field[],
  start?: string,
  end?: string,
  skipShort = false,
): Promise<TickerBars[]> {
  // A whole market is ~6.5M rows: COPY TO STDOUT in text, split here, is about
  // 3x faster than row-by-row query results and makes no object per row.
  // COPY takes no bind parameters; every literal below is validated first.
  for (const l of listings) if (!/^\d{6}$/.test(l.code)) throw new Error(`bad stock code ${l.code}`);
  for (const d of [start, end]) if (d !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new Error(`bad date ${d}`);
  const cols = ['stock_code', 'trade_date', ...fields.map((f) => COLUMN[f])].join(', ');
  const byCode = new Map<string, { dates: string[]; values: number[][] }>();
  for (const exchange of [...new Set(listings.map((l) => l.exchange))]) {
    if (!/^[a-z_]+$/.test(exchange)) throw new Error(`bad table ${exchange}`);
    const codes = listings
      .filter((l) => l.exchange === exchange)
      .map((l) => `'${l.code}'`)
      .join(',');
    const window = `${start ? ` AND trade_date >= '${start}'` : ''}${end ? ` AND trade_date <= '${end}'` : ''}`;
    const stream = client.query(
      copyTo(`COPY (SELECT ${cols} FROM ${exchange} WHERE stock_code IN (${codes})${window} ORDER BY stock_code, trade_date) TO STDOUT`),
    );
    let carry = '';
    let entry: { dates: string[]; values: number[][] } | undefined;
    let current = '';
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = carry + chunk.toString('latin1');
      let from = 0;
      for (let nl = text.indexOf('\n', from); nl >= 0; nl = text.indexOf('\n', from)) {
        const parts = text.slice(from, nl).split('\t');
        from = nl + 1;
        if (parts[0] !== current) {
          current = parts[0];
          entry = { dates: [], values: fields.map(() => []) };
          byCode.set(current, entry);
        }
        entry!.dates.push(parts[1]);
        for (let f = 0; f < fields.length; f++) entry!.values[f].push(parts[2 + f] === '\\N' ? NaN : Number(parts[2 + f]));
      }
      carry = text.slice(from);
    }
  }
  const out: TickerBars[] = [];
  for (const l of listings) {
    const entry = byCode.get(l.code);
    const n = entry?.dates.length ?? 0;
    if (n < MIN_BARS) {
      if (skipShort) continue;
      // throws the specific message (no days, or too few)
      toTickerBars(
        l,
        (entry?.dates ?? []).map((d) => ({ trade_date: d })),
        [],
        start,
        end,
      );
    }
    const bars = {} as Bars;
    fields.forEach((f, i) => (bars[f] = Float64Array.from(entry!.values[i])));
    out.push({ code: l.code, name: l.name, ...shortNameOf(l), dates: entry!.dates, bars });
  }
  return out;
}

/**
 * Every ticker's bars from the shared columnar cache (bar-cache.ts), loading
 * the tables, or the columns, that it does not hold at the current data
 * version. The same tickers, bars and order as fetchManyBars(..., skipShort).
 * `client` must be in a REPEATABLE READ transaction: versions and rows agree.
 */
async function cachedManyBars(
  client: pg.PoolClient,
  listings: Listing[],
  fields: Field[],
  start?: string,
  end?: string,
): Promise<TickerBars[]> {
  for (const d of [start, end]) if (d !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new Error(`bad date ${d}`);
  const tables = new Map<string, Awaited<ReturnType<typeof marketTable>>>();
  for (const exchange of [...new Set(listings.map((l) => l.exchange))]) tables.set(exchange, await marketTable(client, exchange, fields));
  const out: TickerBars[] = [];
  for (const l of listings) {
    const table = tables.get(l.exchange)!;
    const { from, to } = tickerRows(table, l.code, start, end);
    if (to - from < MIN_BARS) continue;
    out.push(Object.assign(cachedTicker(table, l.code, l.name, fields, from, to), shortNameOf(l)));
  }
  return out;
}

export interface RetrievedData {
  tickers: TickerBars[];
  sql: string[];
  /** with "all" tickers: those left out for having too few bars in the window */
  skipped: number;
  /** the last trade date of any ticker's bars */
  lastDate: string;
  /** with `market`: the equal-weight index of every loaded ticker over the tickers' days */
  market?: MarketIndex;
}

export async function retrieve(
  pool: pg.Pool,
  statementTimeoutMs: number,
  wanted: string[],
  fields: Field[],
  start: string | undefined,
  end: string | undefined,
  onProgress?: (done: number, total: number) => void,
  options: { market?: boolean } = {},
): Promise<RetrievedData> {
  const needed = [...new Set<Field>(['OPEN', 'CLOSE', ...fields])];
  const everyTicker = wanted.length === 1 && wanted[0] === ALL_TICKERS;
  return withReadOnly(pool, { statementTimeoutMs }, async (client) => {
    // one snapshot for the listings, the tables' data versions and their rows
    if (everyTicker) await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const listings = await resolveTickers(client, wanted);
    let tickers: TickerBars[] = [];
    // several tickers (a portfolio, a list): one COPY per exchange, not a query and a round trip per ticker
    if (listings.length > 1 || everyTicker) {
      tickers = everyTicker
        ? await cachedManyBars(client, listings, needed, start, end)
        : await fetchManyBars(client, listings, needed, start, end, false);
      if (!tickers.length)
        throw new UserError(`No ticker has at least ${MIN_BARS} trading days from ${start ?? 'the start'} to ${end ?? 'the end'}.`);
      onProgress?.(tickers.length, tickers.length);
    } else {
      for (const listing of listings) {
        tickers.push(await fetchBars(client, listing, needed, start, end));
        onProgress?.(tickers.length, listings.length);
      }
    }
    const sql = everyTicker
      ? [...new Set(listings.map((l) => l.exchange))].map((exchange) => barsSqlMany(exchange, needed, start, end))
      : listings.map((l) => barsSql(l, needed, start, end));
    const lastDate = tickers.reduce((last, t) => {
      const d = lastDay(t);
      return d > last ? d : last;
    }, '');
    let market: MarketIndex | undefined;
    if (options.market) {
      const first = tickers.reduce((m, t) => (firstDay(t) < m ? firstDay(t) : m), firstDay(tickers[0]));
      // the index kept daily (migration 040) when it is current; else every exchange's closes from the shared cache at
      // the tables' current versions (the run id covers the market's bars: a rerun must see a change to any of them)
      market = await keptMarketIndex(client, first, lastDate);
      if (!market) {
        const tables = [];
        for (const table of Object.values(EXCHANGES)) {
          const t = await marketTable(client, table, ['CLOSE']);
          if (t.rows) tables.push(t);
        }
        market = equalWeightIndex(tables, first, lastDate);
      }
    }
    return { tickers, sql, skipped: listings.length - tickers.length, lastDate, market };
  });
}

/**
 * Loads the whole market's OPEN and CLOSE into the bar cache ahead of the first
 * "compare all" (which otherwise pays the load: about 3 s for 6.6M bars), for a
 * process to call once it is up. Nothing happens when there are no bars yet.
 */
export async function warmBarCache(pool: pg.Pool, statementTimeoutMs: number): Promise<void> {
  try {
    await retrieve(pool, statementTimeoutMs, [ALL_TICKERS], [], undefined, undefined);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
  }
}
