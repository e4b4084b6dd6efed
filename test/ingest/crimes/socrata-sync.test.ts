import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { syncSocrata, SOCRATA_STATE_KEY, type SocrataSyncOptions } from '../../../src/ingest/crimes/socrata-sync.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { sodaRecord, startFakeSoda, type FakeSoda } from '../../helpers/fake-soda.js';
import { tempDir } from '../../helpers/files.js';

let db: TestDatabase;
let soda: FakeSoda;
const tmp = tempDir();
const waits: number[] = [];

// 25 records over 5 distinct updated_on instants (ties exercise the id part of the cursor).
const RECORDS = Array.from({ length: 25 }, (_, i) => sodaRecord(1000 + i, `2024-01-0${1 + Math.floor(i / 5)}T10:00:00.000`));

beforeAll(async () => {
  db = await createTestDatabase();
  soda = await startFakeSoda(RECORDS.map((r) => ({ ...r })));
});
afterAll(async () => {
  await soda?.close();
  await db?.drop();
  tmp.remove();
});
beforeEach(() => {
  soda.requests.length = 0;
  waits.length = 0;
});

const options = (overrides: Partial<SocrataSyncOptions> = {}): SocrataSyncOptions => ({
  pool: db.pool,
  url: soda.url,
  pageSize: 10,
  rejectsPath: tmp.file('soda.rejects.csv'),
  logger: createMemoryLogger(),
  sleep: async (ms) => void waits.push(ms),
  ...overrides,
});

const count = async () => (await db.pool.query('SELECT count(*) AS n FROM crimes')).rows[0].n;

describe('syncSocrata against a fake SODA API', () => {
  it('stops after a page when asked, then resumes after the last committed page', async () => {
    const first = await syncSocrata(options({ maxPages: 1 }));
    expect(first).toMatchObject({ pages: 1, fetched: 10, inserted: 10, complete: false });
    expect(first.cursor).toEqual({ updatedOn: '2024-01-02T10:00:00.000', id: 1009 });
    expect(await count()).toBe(10);

    soda.requests.length = 0;
    const rest = await syncSocrata(options());
    expect(rest).toMatchObject({ pages: 2, fetched: 15, inserted: 15, updated: 0, complete: true });
    expect(await count()).toBe(25);
    // the resumed run asked for what comes after the saved cursor, ordered, paged
    expect(soda.requests[0].get('$where')).toBe(
      "updated_on > '2024-01-02T10:00:00.000' OR (updated_on = '2024-01-02T10:00:00.000' AND id > 1009)",
    );
    expect(soda.requests[0].get('$order')).toBe('updated_on,id');
    expect(soda.requests[0].get('$limit')).toBe('10');
  });

  it('picks up records updated since, and only those', async () => {
    soda.records.push(sodaRecord(1003, '2024-02-01T08:00:00.000', { description: 'RECLASSIFIED' }));
    soda.records.push(sodaRecord(5000, '2024-02-01T08:00:00.000'));
    const s = await syncSocrata(options());
    expect(s).toMatchObject({ fetched: 2, inserted: 1, updated: 1, complete: true });
    const { rows } = await db.pool.query('SELECT description FROM crimes WHERE id = 1003');
    expect(rows[0].description).toBe('RECLASSIFIED');
    const state = await db.pool.query('SELECT cursor FROM ingest_state WHERE source = $1', [SOCRATA_STATE_KEY]);
    expect(state.rows[0].cursor).toEqual({ updatedOn: '2024-02-01T08:00:00.000', id: 5000 });
  });

  it('retries 429 and 5xx, honouring Retry-After', async () => {
    soda.records.push(sodaRecord(5001, '2024-03-01T08:00:00.000'));
    soda.failNext.push({ status: 429, retryAfter: '7' }, { status: 503 });
    const s = await syncSocrata(options());
    expect(s).toMatchObject({ fetched: 1, inserted: 1 });
    expect(waits).toEqual([7000, 4000]);
  });

  it('gives up with a clear error after repeated failures, keeping what was committed', async () => {
    soda.failNext.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    await expect(syncSocrata(options())).rejects.toThrow('SODA API kept failing (HTTP 500) after 4 attempts');
    expect(await count()).toBe(27);
    soda.failNext.length = 0;
  });

  it('does not retry a refused request', async () => {
    soda.failNext.push({ status: 403 });
    await expect(syncSocrata(options())).rejects.toThrow(/SODA API refused the request \(HTTP 403\)/);
    expect(waits).toEqual([]);
  });

  it('sends a bad record to the reject file and moves past it', async () => {
    soda.records.push(sodaRecord(5002, '2024-04-01T08:00:00.000', { date: 'yesterday' }));
    soda.records.push(sodaRecord(5003, '2024-04-01T08:00:00.000'));
    const s = await syncSocrata(options());
    expect(s).toMatchObject({ fetched: 2, inserted: 1, rejected: 1 });
    expect(s.cursor).toEqual({ updatedOn: '2024-04-01T08:00:00.000', id: 5003 });
    const again = await syncSocrata(options());
    expect(again).toMatchObject({ fetched: 0, complete: true });
  });
});
