// Reproducible backtests: a run id is a short hash of what decides the
// numbers, namely the spec (the request as read, the execution model in it),
// the engine version (this file's ENGINE_VERSION and, with costs, the
// execution model's fixture) and a digest of every bar value the run read.
// The same id means the same numbers; a rerun that finds other data says what
// changed (runs are kept in backtest_runs).
import { createHash } from 'node:crypto';
import type { MarketIndex } from './benchmark.js';
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { fixturePath } from '../core/paths.js';
import { dayCount, firstDay, lastDay, sharedLocation } from './bar-cache.js';
import type { Kpis } from './kpis.js';
import type { TickerBars } from './run-spec.js';
import { strategySpecSchema, type StrategySpec } from './spec.js';

/** Bump when the engine's numbers change for the same spec and bars (a rule, a KPI, rounding). */
// .2: alpha over the risk-free rate, the market compounded over suspensions, ST from the short name
// .3: the day-rules (stops, limits) and portfolio engines read ST from the short name too
export const ENGINE_VERSION = 'engine-2026.12.3';

let chinaFixture: string | undefined;
/** The engine version of a spec: with costs, also which rates (the fixture's digest). */
export function engineVersion(spec: Pick<StrategySpec, 'costs'>): string {
  if (spec.costs !== 'china') return ENGINE_VERSION;
  chinaFixture ??= createHash('sha256')
    .update(readFileSync(fixturePath('backtest', 'execution-china.json')))
    .digest('hex')
    .slice(0, 8);
  return `${ENGINE_VERSION}+china-${chinaFixture}`;
}

export interface TickerSummary {
  code: string;
  bars: number;
  first: string;
  last: string;
  digest: string;
}

/** At most this many tickers are summarised one by one (a whole market is summarised as its totals). */
const SUMMARISED = 200;

const bytesOf = (a: ArrayLike<number>) => {
  const f = a instanceof Float64Array ? a : Float64Array.from(a as ArrayLike<number>);
  return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
};

/** The digest of the bars a run read, and their summary for telling a rerun what changed. */
export function dataVersion(tickers: readonly TickerBars[]): { digest: string; summary: TickerSummary[] } {
  if (tickers.length > SUMMARISED) {
    const at = tickers.map(sharedLocation);
    if (at.every(Boolean)) return marketVersion(tickers, at as NonNullable<(typeof at)[number]>[]);
  }
  const all = createHash('sha256');
  const summary: TickerSummary[] = [];
  for (const t of tickers) {
    const h = createHash('sha256');
    // the days: from the shared cache as day numbers (a whole market's 6.6M dates are never joined into text)
    const at = sharedLocation(t);
    h.update(`${t.code}\u0000`);
    if (at) h.update(new Uint8Array(at.table.days.buffer, at.table.days.byteOffset + at.from * 4, (at.to - at.from) * 4));
    else h.update(t.dates.join(','));
    for (const field of Object.keys(t.bars).sort()) h.update(field).update(bytesOf(t.bars[field as keyof typeof t.bars]!));
    const digest = h.digest('hex');
    all.update(digest);
    if (tickers.length <= SUMMARISED)
      summary.push({ code: t.code, bars: t.dates.length, first: t.dates[0], last: t.dates.at(-1)!, digest: digest.slice(0, 16) });
  }
  if (tickers.length > SUMMARISED) summary.push(totals(tickers));
  return { digest: all.digest('hex'), summary };
}

/** The summary line of the market index beside a run. */
const MARKET_SUMMARY = 'the market index';

/**
 * The run's data with the market index it was measured against: the index's days and values join the digest, so a
 * change to a ticker that only feeds the market changes the run id, and the summary gets a line for the index (a
 * whole market's totals already cover every bar of it).
 */
export function withMarket(
  version: { digest: string; summary: TickerSummary[] },
  market: MarketIndex | undefined,
): { digest: string; summary: TickerSummary[] } {
  if (!market) return version;
  const h = createHash('sha256').update(`members:${market.members}\u0000`);
  const days = [...market.returns.keys()];
  h.update(days.join(','));
  h.update(bytesOf(Float64Array.from(market.returns.values())));
  const digest = h.digest('hex');
  const totalsOnly = version.summary.length === 1 && version.summary[0].digest === '';
  const line: TickerSummary = {
    code: MARKET_SUMMARY,
    bars: days.length,
    first: days[0] ?? '',
    last: days.at(-1) ?? '',
    digest: digest.slice(0, 16),
  };
  return {
    digest: createHash('sha256').update(`${version.digest}\u0000${digest}`).digest('hex'),
    summary: totalsOnly ? version.summary : [...version.summary, line],
  };
}

/**
 * A whole market from the shared cache: the tables' versions (their row count, last day and row versions: any write
 * changes it) and each ticker's rows, instead of hashing 6.6M bars (about 90 ms on the event loop).
 */
function marketVersion(tickers: readonly TickerBars[], at: { table: { exchange: string; version: string }; from: number; to: number }[]) {
  const h = createHash('sha256');
  for (const v of new Set(at.map((a) => `${a.table.exchange}@${a.table.version}`))) h.update(`${v}\u0000`);
  tickers.forEach((t, i) => h.update(`${t.code}:${at[i].from}:${at[i].to};`));
  return { digest: h.digest('hex'), summary: [totals(tickers)] };
}

/** A whole market as one summary line: how many tickers and bars, the first and last day. */
function totals(tickers: readonly TickerBars[]): TickerSummary {
  const bars = tickers.reduce((n, t) => n + dayCount(t), 0);
  const last = tickers.reduce((m, t) => (lastDay(t) > m ? lastDay(t) : m), '');
  const first = tickers.reduce((m, t) => (firstDay(t) < m ? firstDay(t) : m), '9999');
  return { code: `${tickers.length} tickers`, bars, first, last, digest: '' };
}

// Crockford's base 32: no I, L, O or U, easy to read out and type
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const stableJson = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(stableJson).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

/** The run id: 10 characters of base 32 (50 bits) of the hash of spec, engine and data. */
export function runId(spec: StrategySpec, engine: string, dataDigest: string): string {
  // the spec with its defaults filled and its keys in order: the same request always hashes the same
  const canonical = stableJson(strategySpecSchema.parse(spec));
  const hash = createHash('sha256').update(`${canonical}\u0000${engine}\u0000${dataDigest}`).digest();
  let id = '';
  for (let i = 0; i < 10; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const v = ((hash[byte] << 8) | hash[byte + 1]) >> (11 - (bit & 7));
    id += ALPHABET[v & 31];
  }
  return id;
}

export interface StoredRun {
  id: string;
  request: string;
  spec: StrategySpec;
  engine: string;
  data_digest: string;
  data_summary: TickerSummary[];
  headline: string;
  best: { label: string; kpis: Kpis };
  created_at: Date;
}

/**
 * Keeps runs (the app's pool: the reader login cannot write), per workspace: a run is found only by an asker of the
 * workspace (or scope: knowledge/scope.ts) it ran in; undefined is the terminal's own.
 */
export class BacktestRuns {
  constructor(private readonly pool: pg.Pool) {}

  async save(run: Omit<StoredRun, 'created_at'>, workspace?: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO backtest_runs (id, request, spec, engine, data_digest, data_summary, headline, best, workspace) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (workspace, id) DO NOTHING`,
      [
        run.id,
        run.request,
        JSON.stringify(run.spec),
        run.engine,
        run.data_digest,
        JSON.stringify(run.data_summary),
        run.headline,
        JSON.stringify(run.best),
        workspace ?? null,
      ],
    );
  }

  /** The run with this id in this workspace; another workspace's run is not found (its existence is not told either). */
  async get(id: string, workspace?: string): Promise<StoredRun | undefined> {
    const { rows } = await this.pool.query<StoredRun>(
      'SELECT id, request, spec, engine, data_digest, data_summary, headline, best, created_at FROM backtest_runs WHERE id = $1 AND workspace IS NOT DISTINCT FROM $2',
      [id.trim().toUpperCase(), workspace ?? null],
    );
    return rows[0];
  }

  /** Whether a run of this id was kept in any workspace (a run link's page says no more than that). */
  async exists(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM backtest_runs WHERE id = $1 LIMIT 1', [id.trim().toUpperCase()]);
    return Boolean(rowCount);
  }
}

/** A run's link: `${PUBLIC_BASE_URL}/runs/<ID>` (server/run-routes.ts serves it, Slack unfurls it for the run's workspace). */
export const runLink = (baseUrl: string, id: string) => `${baseUrl}/runs/${id}`;

/** The id in a run link's path (`/runs/7K3QF9XQ2M`), upper-cased; undefined for any other path. */
export function runIdOfPath(pathname: string): string | undefined {
  return /^\/runs\/([0-9A-Za-z]{10})\/?$/.exec(pathname)?.[1].toUpperCase();
}

/** What differs between the data of two runs, in sentences ([] when nothing does). */
export function dataChanges(before: TickerSummary[], after: TickerSummary[]): string[] {
  const isTotals = (s: TickerSummary[]) => s.length === 1 && s[0].digest === '';
  if (isTotals(before) || isTotals(after)) {
    // a whole market is kept as its totals: say them, or that the tables were written to
    const [b, a] = [before[0], after[0]];
    return b.code === a.code && b.bars === a.bars && b.first === a.first && b.last === a.last
      ? ['the exchange tables were written to since (a load or a correction); the window still has the same tickers and bars']
      : [`${b.code} and ${b.bars} bars ${b.first} to ${b.last} then, ${a.code} and ${a.bars} bars ${a.first} to ${a.last} now`];
  }
  const now = new Map(after.map((t) => [t.code, t]));
  const changes: string[] = [];
  for (const b of before) {
    const a = now.get(b.code);
    if (!a) {
      changes.push(`${b.code} has no bars in the window any more`);
      continue;
    }
    if (a.bars !== b.bars || a.last !== b.last || a.first !== b.first) {
      changes.push(`${b.code}: ${b.bars} bars ${b.first} to ${b.last} then, ${a.bars} bars ${a.first} to ${a.last} now`);
    } else if (a.digest !== b.digest) {
      changes.push(
        b.code === MARKET_SUMMARY
          ? `${b.code}: the same days, but the prices of tickers that feed it changed`
          : `${b.code}: the same days, but some prices changed`,
      );
    }
  }
  for (const a of after) if (!before.some((b) => b.code === a.code)) changes.push(`${a.code} is new in the window`);
  return changes;
}
