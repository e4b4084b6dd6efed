// Incremental sync from the portal's SODA API. Pages are read in
// (updated_on, id) order with a keyset condition rather than growing $offset
// values: a row updated during a long sync moves to the end of the order, and
// offset paging would then skip the row that slid into its place. Each page is
// upserted together with the new cursor in one transaction, so a sync that
// stops (crash, network) resumes after the last committed page.
import type pg from 'pg';
import type { Logger } from '../../core/logger.js';
import { UserError } from '../../core/errors.js';
import { BatchUpserter, addCounts, zeroCounts } from '../upsert-batch.js';
import { RejectFile } from '../rejects.js';
import { recordRun } from '../run-log.js';
import { CRIMES_SPEC } from './crime-table.js';
import { parseSodaRecord, type SodaRecord } from './soda-row.js';

export const SOCRATA_STATE_KEY = 'crimes:socrata';

interface SocrataCursor {
  /** the last committed updated_on, as SODA writes it (floating, no offset) */
  updatedOn: string;
  id: number;
}

export interface SocrataSyncOptions {
  pool: pg.Pool;
  url: string;
  appToken?: string;
  pageSize: number;
  rejectsPath: string;
  logger: Logger;
  /** stop after this many pages (tests, partial runs); the cursor stays resumable */
  maxPages?: number;
  fetchImpl?: typeof fetch;
  /** waits between retries; injected by tests */
  sleep?: (ms: number) => Promise<void>;
}

export interface SocrataSyncSummary {
  pages: number;
  fetched: number;
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: number;
  rejectsPath?: string;
  cursor?: SocrataCursor;
  complete: boolean;
}

const toSoda = (ts: string) => `${ts.replace(' ', 'T')}.000`;

async function startingCursor(client: pg.PoolClient): Promise<SocrataCursor | undefined> {
  const saved = await client.query<{ cursor: SocrataCursor }>('SELECT cursor FROM ingest_state WHERE source = $1', [SOCRATA_STATE_KEY]);
  if (saved.rowCount) return saved.rows[0].cursor;
  // No sync yet: continue from what a CSV load brought (re-reading that instant is harmless).
  const max = await client.query<{ updated_on: string | null }>(
    `SELECT to_char(max(updated_on), 'YYYY-MM-DD HH24:MI:SS') AS updated_on FROM crimes`,
  );
  const last = max.rows[0].updated_on;
  return last ? { updatedOn: toSoda(last), id: 0 } : undefined;
}

function pageUrl(base: string, cursor: SocrataCursor | undefined, limit: number): string {
  const url = new URL(base);
  if (cursor) {
    url.searchParams.set('$where', `updated_on > '${cursor.updatedOn}' OR (updated_on = '${cursor.updatedOn}' AND id > ${cursor.id})`);
  }
  url.searchParams.set('$order', 'updated_on,id');
  url.searchParams.set('$limit', String(limit));
  return url.toString();
}

async function fetchPage(url: string, options: SocrataSyncOptions): Promise<SodaRecord[]> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.appToken) headers['X-App-Token'] = options.appToken;
  const attempts = 4;
  for (let attempt = 1; ; attempt++) {
    let status = 0;
    let retryAfter: string | null = null;
    try {
      const response = await fetchImpl(url, { headers, signal: AbortSignal.timeout(120_000) });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      if (response.ok) {
        const body = (await response.json()) as unknown;
        if (!Array.isArray(body)) throw new UserError(`SODA API at ${new URL(url).origin} answered with something other than a JSON array`);
        return body as SodaRecord[];
      }
      if (status !== 429 && status < 500) {
        const detail = (await response.text()).slice(0, 300);
        throw new UserError(`SODA API refused the request (HTTP ${status}): ${detail}`);
      }
    } catch (error) {
      if (error instanceof UserError) throw error;
      if (attempt >= attempts) throw new UserError(`SODA API unreachable at ${new URL(url).origin}: ${(error as Error).message}`);
    }
    if (attempt >= attempts) throw new UserError(`SODA API kept failing (HTTP ${status}) after ${attempts} attempts`);
    const waitSeconds = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : 2 ** attempt;
    options.logger.warn(`SODA API: HTTP ${status || 'error'}, retrying in ${waitSeconds}s (attempt ${attempt + 1} of ${attempts})`);
    await sleep(waitSeconds * 1000);
  }
}

export async function syncSocrata(options: SocrataSyncOptions): Promise<SocrataSyncSummary> {
  return recordRun(options.pool, SOCRATA_STATE_KEY, () => syncPages(options));
}

async function syncPages(options: SocrataSyncOptions): Promise<SocrataSyncSummary> {
  const client = await options.pool.connect();
  const rejects = new RejectFile(options.rejectsPath);
  const upserter = new BatchUpserter(client, CRIMES_SPEC);
  let counts = zeroCounts();
  let pages = 0;
  let fetched = 0;
  let complete = false;
  let cursor: SocrataCursor | undefined;
  try {
    await upserter.prepare();
    cursor = await startingCursor(client);
    while (options.maxPages === undefined || pages < options.maxPages) {
      const records = await fetchPage(pageUrl(options.url, cursor, options.pageSize), options);
      if (records.length === 0) {
        complete = true;
        break;
      }
      pages++;
      fetched += records.length;
      const lines: string[] = [];
      let next = cursor;
      for (let i = 0; i < records.length; i++) {
        const parsed = parseSodaRecord(records[i]);
        // The cursor follows the API's order even past a bad record, so it is never fetched again.
        const rawUpdated = typeof records[i].updated_on === 'string' ? (records[i].updated_on as string) : undefined;
        const rawId = Number(records[i].id);
        if (rawUpdated && Number.isInteger(rawId)) next = { updatedOn: rawUpdated, id: rawId };
        if ('reason' in parsed) {
          await rejects.add({ where: `page ${pages} record ${i + 1}`, reason: parsed.reason, raw: JSON.stringify(records[i]) });
          continue;
        }
        lines.push(`${parsed.values}\t${fetched - records.length + i + 1}`);
      }
      const committed = next;
      counts = addCounts(
        counts,
        await upserter.write(lines, async (c) => {
          if (!committed) return;
          await c.query(
            `INSERT INTO ingest_state (source, cursor, updated_at) VALUES ($1, $2, now())
             ON CONFLICT (source) DO UPDATE SET cursor = excluded.cursor, updated_at = now()`,
            [SOCRATA_STATE_KEY, JSON.stringify(committed)],
          );
        }),
      );
      cursor = committed;
      options.logger.debug(`SODA page ${pages}: ${records.length} records, cursor ${cursor?.updatedOn} / ${cursor?.id}`);
      if (records.length < options.pageSize) {
        complete = true;
        break;
      }
    }
  } finally {
    client.release();
    await rejects.close();
  }
  return {
    pages,
    fetched,
    ...counts,
    rejected: rejects.count,
    rejectsPath: rejects.count ? rejects.path : undefined,
    cursor,
    complete,
  };
}
