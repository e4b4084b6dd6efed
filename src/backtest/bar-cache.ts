// A shared columnar cache of daily bars for whole-market scans: one entry per
// exchange table, each column a Float64Array over a SharedArrayBuffer, so the
// worker threads read the same memory the main thread filled (no copy).
//
// An entry belongs to one data version of its table: its row count, last
// trade date, the sum of its rows' xmin (every INSERT or UPDATE writes a row
// version with a new transaction id, so a corrected price changes the sum
// even when count and dates stay), and its storage (relfilenode: TRUNCATE,
// VACUUM FULL). Any change gives a new version, and the next scan reloads
// that table. Taking the version reads the table once (about 0.2 s for 2.7M
// rows), far less than loading it. Columns are loaded only when a scan's
// factors read them (OPEN and CLOSE always), and a missing one is added to
// the entry of the same version.
//
// Rows are ordered by (stock_code, trade_date); dates are kept as day numbers
// (days since 1970-01-01) and turned into text only for the tickers whose
// dates are read (the winner's chart, the trade list).
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Field } from './expr/parser.js';
import type { Bars } from './expr/compile.js';
import type { TickerBars } from './run-spec.js';
import { dayOfDigits, dayOfIso, dayText } from './days.js';

export const BAR_COLUMN: Record<Field, string> = {
  OPEN: 'opening_price',
  CLOSE: 'closing_price',
  HIGH: 'highest_price',
  LOW: 'lowest_price',
  VOLUME: 'volume_traded',
  AMOUNT: 'amount_traded',
  PERCENTAGE_CHANGE: 'percentage_change',
};

/** One exchange table in memory. */
export interface MarketTable {
  exchange: string;
  version: string;
  rows: number;
  /** the distinct codes, in row order */
  codes: string[];
  /** code -> its index in `codes` */
  index: Map<string, number>;
  /** first row of each code, and `rows` at the end (codes.length + 1 entries) */
  starts: Int32Array;
  /** trade date of each row, as days since 1970-01-01 (shared) */
  days: Int32Array;
  /** the columns loaded so far (shared) */
  columns: Map<Field, Float64Array>;
}

const tables = new Map<string, MarketTable>();
// one load at a time per table: two scans arriving together share the first one's load
const locks = new Map<string, Promise<unknown>>();

export interface CacheStats {
  hits: number;
  loads: number;
  /** columns added to an entry of the current version */
  columnLoads: number;
}
const stats: CacheStats = { hits: 0, loads: 0, columnLoads: 0 };

export function barCacheStats(): CacheStats & {
  tables: { exchange: string; version: string; rows: number; columns: Field[]; bytes: number }[];
} {
  return {
    ...stats,
    tables: [...tables.values()].map((t) => ({
      exchange: t.exchange,
      version: t.version,
      rows: t.rows,
      columns: [...t.columns.keys()],
      bytes: t.days.byteLength + t.starts.byteLength + [...t.columns.values()].reduce((s, c) => s + c.byteLength, 0),
    })),
  };
}

/** Forgets every table (the memory goes once no scan holds it). */
export function clearBarCache(): void {
  tables.clear();
  stats.hits = stats.loads = stats.columnLoads = 0;
}

function checkedTable(exchange: string): string {
  if (!/^[a-z_]+$/.test(exchange)) throw new Error(`bad table ${exchange}`);
  return exchange;
}

/**
 * The data version of a table as the current transaction sees it. Run the
 * loads in the same REPEATABLE READ transaction so that version and rows agree.
 */
async function tableVersion(client: pg.PoolClient, exchange: string): Promise<{ version: string; rows: number }> {
  const table = checkedTable(exchange);
  const { rows } = await client.query<{ n: string; last: string | null; xmins: string | null; node: string }>(
    `SELECT count(*) AS n, max(trade_date)::text AS last, sum(xmin::text::bigint)::text AS xmins,
            (SELECT relfilenode::text FROM pg_class WHERE oid = '${table}'::regclass) AS node
     FROM ${table}`,
  );
  const r = rows[0];
  return { version: [r.n, r.last, r.xmins, r.node].join('/'), rows: Number(r.n) };
}

async function withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = locks.get(key) ?? Promise.resolve();
  const run = before.then(work, work);
  // the lock's queue only waits for the run to end; its failure reaches the caller through `await run` below
  const settled = run.catch(() => undefined);
  locks.set(key, settled);
  try {
    return await run;
  } finally {
    if (locks.get(key) === settled) locks.delete(key);
  }
}

/**
 * The table at its current version with at least `fields` loaded. `client`
 * must be inside a transaction (REPEATABLE READ for a consistent version).
 */
export async function marketTable(client: pg.PoolClient, exchange: string, fields: readonly Field[]): Promise<MarketTable> {
  return withLock(exchange, async () => {
    const { version, rows } = await tableVersion(client, exchange);
    let table = tables.get(exchange);
    if (table && table.version !== version) {
      tables.delete(exchange);
      table = undefined;
    }
    const missing = [...new Set(fields)].filter((f) => !table?.columns.has(f));
    if (!table) {
      table = await loadTable(client, exchange, version, rows, missing);
      tables.set(exchange, table);
      stats.loads++;
    } else if (missing.length) {
      await loadColumns(client, table, missing);
      stats.columnLoads++;
    } else {
      stats.hits++;
    }
    return table;
  });
}

const sharedFloat64 = (n: number) => new Float64Array(new SharedArrayBuffer(Math.max(1, n) * 8), 0, n);

async function loadTable(client: pg.PoolClient, exchange: string, version: string, rows: number, fields: Field[]): Promise<MarketTable> {
  const days = new Int32Array(new SharedArrayBuffer(Math.max(1, rows) * 4), 0, rows);
  const columns = fields.map(() => sharedFloat64(rows));
  const codes: string[] = [];
  const starts: number[] = [];
  const cols = ['stock_code', 'trade_date', ...fields.map((f) => BAR_COLUMN[f])].join(', ');
  const stream = client.query(copyTo(`COPY (SELECT ${cols} FROM ${checkedTable(exchange)} ORDER BY stock_code, trade_date) TO STDOUT`));
  let row = 0;
  let lastCode = '';
  await readCopyRows(stream as AsyncIterable<Buffer>, (line, from, to) => {
    if (row >= rows) throw new Error(`${exchange}: more rows than counted (${rows})`);
    // stock_code
    let tab = line.indexOf(9, from);
    if (tab < 0 || tab > to) throw new Error(`${exchange}: malformed COPY row ${row}`);
    if (tab - from !== lastCode.length || !sameText(line, from, lastCode)) {
      lastCode = line.toString('latin1', from, tab);
      codes.push(lastCode);
      starts.push(row);
    }
    // trade_date, YYYY-MM-DD
    const d = tab + 1;
    days[row] = dayOfDigits(line, d);
    if (line[d + 10] !== 9 && d + 10 !== to) throw new Error(`${exchange}: unexpected date at row ${row}`);
    let at = d + 11;
    for (let f = 0; f < columns.length; f++) {
      tab = f === columns.length - 1 ? to : line.indexOf(9, at);
      if (tab < 0 || tab > to) throw new Error(`${exchange}: missing column at row ${row}`);
      columns[f][row] = parseNumber(line, at, tab);
      at = tab + 1;
    }
    row++;
  });
  if (row !== rows) throw new Error(`${exchange}: ${row} rows read, ${rows} counted`);
  starts.push(rows);
  return {
    exchange,
    version,
    rows,
    codes,
    index: new Map(codes.map((c, i) => [c, i])),
    starts: Int32Array.from(starts),
    days,
    columns: new Map(fields.map((f, i) => [f, columns[i]])),
  };
}

async function loadColumns(client: pg.PoolClient, table: MarketTable, fields: Field[]): Promise<void> {
  const columns = fields.map(() => sharedFloat64(table.rows));
  const cols = fields.map((f) => BAR_COLUMN[f]).join(', ');
  const stream = client.query(
    copyTo(`COPY (SELECT ${cols} FROM ${checkedTable(table.exchange)} ORDER BY stock_code, trade_date) TO STDOUT`),
  );
  let row = 0;
  await readCopyRows(stream as AsyncIterable<Buffer>, (line, from, to) => {
    if (row >= table.rows) throw new Error(`${table.exchange}: more rows than counted (${table.rows})`);
    let at = from;
    for (let f = 0; f < columns.length; f++) {
      const tab = f === columns.length - 1 ? to : line.indexOf(9, at);
      if (tab < 0 || tab > to) throw new Error(`${table.exchange}: missing column at row ${row}`);
      columns[f][row] = parseNumber(line, at, tab);
      at = tab + 1;
    }
    row++;
  });
  if (row !== table.rows) throw new Error(`${table.exchange}: ${row} rows read, ${table.rows} counted`);
  fields.forEach((f, i) => table.columns.set(f, columns[i]));
}

/** Parsing time after which the load lets the event loop run (timers, sockets, other requests). */
const SLICE_MS = 8;
/** Rows parsed between looks at the clock (about 0.1 ms of work): a chunk can hold many thousand rows. */
const ROWS_PER_LOOK = 256;

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Calls `onRow(buffer, start, end)` for each line of a COPY text stream (end
 * excludes the newline). The server sends faster than one chunk per turn of
 * the event loop, `for await` takes the buffered chunks one after another in
 * microtasks, and one chunk may hold everything the socket buffered while the
 * loop was busy: the clock is read every few hundred rows, inside a chunk too,
 * and the loop runs every SLICE_MS. A row split across two chunks is joined
 * alone (not the whole chunk copied after it).
 */
async function readCopyRows(stream: AsyncIterable<Buffer>, onRow: (line: Buffer, from: number, to: number) => void): Promise<void> {
  let carry: Buffer | undefined;
  let slice = performance.now();
  let untilLook = ROWS_PER_LOOK;
  for await (const chunk of stream) {
    let from = 0;
    if (carry) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      const line = Buffer.concat([carry, chunk.subarray(0, nl)]);
      onRow(line, 0, line.length);
      from = nl + 1;
      carry = undefined;
    }
    for (let nl = chunk.indexOf(10, from); nl >= 0; nl = chunk.indexOf(10, from)) {
      onRow(chunk, from, nl);
      from = nl + 1;
      if (--untilLook === 0) {
        untilLook = ROWS_PER_LOOK;
        if (performance.now() - slice > SLICE_MS) {
          await turn();
          slice = performance.now();
        }
      }
    }
    carry = from < chunk.length ? chunk.subarray(from) : undefined;
  }
  if (carry?.length) throw new Error('COPY ended inside a row');
}

function sameText(buf: Buffer, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (buf[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

// exact powers of ten: m / 10^k is then correctly rounded (m < 2^53, k <= 22)
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * A number as PostgreSQL's COPY text writes it, exactly as Number(text) reads
 * it: short decimals (at most 15 significant digits) are computed as an integer
 * over a power of ten, a single correctly rounded division; anything else
 * (exponents, long mantissas, NaN, Infinity) goes through Number. `\N` is NaN.
 */
export function parseNumber(buf: Buffer, from: number, to: number): number {
  if (to - from === 2 && buf[from] === 92 && buf[from + 1] === 78) return NaN; // \N
  let i = from;
  const negative = buf[i] === 45;
  if (negative) i++;
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  let dot = false;
  const startDigits = i;
  for (; i < to; i++) {
    const c = buf[i];
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      if (mantissa !== 0) digits++;
      if (dot) scale++;
    } else if (c === 46 && !dot) {
      dot = true;
    } else {
      return Number(buf.toString('latin1', from, to));
    }
  }
  if (i === startDigits || digits > 15 || scale > 22 || (dot && i === startDigits + 1)) return Number(buf.toString('latin1', from, to));
  const value = scale ? mantissa / POW10[scale] : mantissa;
  return negative ? -value : value;
}

/** Where a cache-backed ticker's bars live: for the worker threads, which read the shared columns. */
export interface SharedLocation {
  table: MarketTable;
  from: number;
  to: number;
}

const locations = new WeakMap<TickerBars, SharedLocation>();

export function sharedLocation(t: TickerBars): SharedLocation | undefined {
  return locations.get(t);
}

/** The rows of `code` from `start` to `end` (inclusive, ISO dates; undefined: open). */
export function tickerRows(table: MarketTable, code: string, start?: string, end?: string): { from: number; to: number } {
  const i = table.index.get(code);
  if (i === undefined) return { from: 0, to: 0 };
  let from = table.starts[i];
  let to = table.starts[i + 1];
  if (start) from = lowerBound(table.days, from, to, dayOfIso(start));
  if (end) to = lowerBound(table.days, from, to, dayOfIso(end) + 1);
  return { from, to };
}

function lowerBound(days: Int32Array, lo: number, hi: number, day: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (days[mid] < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A ticker over rows [from, to) of a cached table: its columns are views of the
 * shared ones (no copy), its dates are made on first read.
 */
export function cachedTicker(
  table: MarketTable,
  code: string,
  name: string,
  fields: readonly Field[],
  from: number,
  to: number,
): TickerBars {
  const bars = {} as Bars;
  for (const f of fields) {
    const col = table.columns.get(f);
    if (!col) throw new Error(`${table.exchange}: column ${f} is not loaded`);
    bars[f] = col.subarray(from, to);
  }
  let dates: string[] | undefined;
  const ticker = { code, name, bars } as TickerBars;
  Object.defineProperty(ticker, 'dates', {
    enumerable: true,
    get: () => (dates ??= Array.from(table.days.subarray(from, to), dayText)),
  });
  locations.set(ticker, { table, from, to });
  return ticker;
}

/** The first trade date of a cache-backed ticker without making its dates. */
export function firstDay(t: TickerBars): string {
  const at = locations.get(t);
  return at ? dayText(at.table.days[at.from]) : t.dates[0];
}

/** The trading days of a ticker, without making a cache-backed ticker's dates. */
export function dayCount(t: TickerBars): number {
  const at = locations.get(t);
  return at ? at.to - at.from : t.dates.length;
}

/** The last trade date of a cache-backed ticker without making its dates. */
export function lastDay(t: TickerBars): string {
  const at = locations.get(t);
  return at ? dayText(at.table.days[at.to - 1]) : t.dates[t.dates.length - 1];
}
