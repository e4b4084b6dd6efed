// Data retrieval for a strategy spec: tickers by code or company name, then
// the daily bars of the window, only the columns the factors read. Runs as
// datadesk_reader in a read-only transaction; the SQL is shown in the answer.
import type pg from 'pg';
import { UserError } from '../../core/errors.js';
import type { TickerBars } from '../../backtest/run-spec.js';
import type { Bars } from '../../backtest/expr/compile.js';
import type { Field } from '../../backtest/expr/parser.js';
import { withReadOnly } from '../../db/read-only.js';
import { ALL_TICKERS } from '../../backtest/spec.js';

export interface Listing {
  code: string;
  name: string;
  exchange: string;
  firstDate: string;
  lastDate: string;
}

const COLUMN: Record<Field, string> = {
  OPEN: 'opening_price', CLOSE: 'closing_price', HIGH: 'highest_price', LOW: 'lowest_price',
  VOLUME: 'volume_traded', AMOUNT: 'amount_traded', PERCENTAGE_CHANGE: 'percentage_change',
};

/** Too few bars for a meaningful backtest: most factors need a few weeks of history. */
export const MIN_BARS = 2;

const listingColumns = `stock_code AS code, name, exchange, first_date::text AS "firstDate", last_date::text AS "lastDate"`;

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
      if (!rows.length) throw new UserError(`Unknown ticker ${text}: no bars for that code on the Shanghai, Shenzhen or Beijing exchange in our data.`);
      out.push(rows[0]);
      continue;
    }
    const exact = await client.query<Listing>(
      `SELECT ${listingColumns} FROM stock_listings WHERE lower(name) = lower($1) OR lower(short_name) = lower($1)`, [text]);
    const rows = exact.rows.length
      ? exact.rows
      : (await client.query<Listing>(
          `SELECT ${listingColumns} FROM stock_listings WHERE name ILIKE '%' || $1 || '%' OR short_name ILIKE '%' || $1 || '%' ORDER BY stock_code LIMIT 6`,
          [text.replace(/[%_\\]/g, '\\$&')],
        )).rows;
    if (rows.length === 0) throw new UserError(`Unknown ticker "${text}": no company by that name or code. Use the 6-digit code, e.g. 600519.`);
    if (rows.length > 1) {
      throw new UserError(`"${text}" matches several companies: ${rows.slice(0, 5).map((r) => `${r.code} ${r.name}`).join('; ')}. Which one? Use its code.`);
    }
    out.push(rows[0]);
  }
  return out;
}

/** The bars query for display, with the literal values a reader can run as is. */
export function barsSql(listing: Listing, fields: Field[], start?: string, end?: string): string {
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

function toTickerBars(listing: Listing, rows: Record<string, string | number>[], fields: Field[], start?: string, end?: string): TickerBars {
  const window = `${start ?? listing.firstDate} to ${end ?? listing.lastDate}`;
  if (rows.length === 0) {
    throw new UserError(`${listing.code} ${listing.name} has no trading days from ${window} (its data covers ${listing.firstDate} to ${listing.lastDate}).`);
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
  return { code: listing.code, name: listing.name, dates: rows.map((r) => String(r.trade_date)), bars };
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
  const cols = ['stock_code', 'trade_date::text AS trade_date', ...fields.map((f) => `${COLUMN[f]} AS "${f}"`)].join(', ');
  const byCode = new Map<string, Record<string, string | number>[]>();
  for (const exchange of [...new Set(listings.map((l) => l.exchange))]) {
    const codes = listings.filter((l) => l.exchange === exchange).map((l) => l.code);
    const { rows } = await client.query<Record<string, string | number>>(
      `SELECT ${cols} FROM ${exchange} WHERE stock_code = ANY($1)
         AND ($2::date IS NULL OR trade_date >= $2) AND ($3::date IS NULL OR trade_date <= $3) ORDER BY stock_code, trade_date`,
      [codes, start ?? null, end ?? null],
    );
    for (const row of rows) {
      const code = String(row.stock_code);
      if (!byCode.has(code)) byCode.set(code, []);
      byCode.get(code)!.push(row);
    }
  }
  return listings
    .filter((l) => !skipShort || (byCode.get(l.code)?.length ?? 0) >= MIN_BARS)
    .map((l) => toTickerBars(l, byCode.get(l.code) ?? [], fields, start, end));
}

export interface RetrievedData {
  tickers: TickerBars[];
  sql: string[];
  /** with "all" tickers: those left out for having too few bars in the window */
  skipped: number;
}

export async function retrieve(
  pool: pg.Pool,
  statementTimeoutMs: number,
  wanted: string[],
  fields: Field[],
  start: string | undefined,
  end: string | undefined,
  onProgress?: (done: number, total: number) => void,
): Promise<RetrievedData> {
  const needed = [...new Set<Field>(['OPEN', 'CLOSE', ...fields])];
  return withReadOnly(pool, { statementTimeoutMs }, async (client) => {
    const listings = await resolveTickers(client, wanted);
    const everyTicker = wanted.length === 1 && wanted[0] === ALL_TICKERS;
    let tickers: TickerBars[] = [];
    if (listings.length > 20 || everyTicker) {
      tickers = await fetchManyBars(client, listings, needed, start, end, everyTicker);
      if (!tickers.length) throw new UserError(`No ticker has at least ${MIN_BARS} trading days from ${start ?? 'the start'} to ${end ?? 'the end'}.`);
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
    return { tickers, sql, skipped: listings.length - tickers.length };
  });
}
