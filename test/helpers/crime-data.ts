// Loads synthetic crimes into a test database through the real generator and
// ingest path.
import type pg from 'pg';
import { generateCrimes } from '../../src/ingest/generate/crimes.js';
import { ingestCsv } from '../../src/ingest/csv-ingest.js';
import { CRIMES_SPEC } from '../../src/ingest/crimes/crime-table.js';
import { portalCsvSource } from '../../src/ingest/crimes/portal-csv.js';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './files.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export async function loadCrimes(pool: pg.Pool, rows = 20_000, seed = 3): Promise<void> {
  const tmp = tempDir();
  try {
    const file = tmp.file('crimes.csv');
    await generateCrimes({ rows, seed, out: file });
    await ingestCsv({ pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath: tmp.file('r.csv') });
    await pool.query('ANALYZE crimes');
  } finally {
    tmp.remove();
  }
}

/** One real-shaped portal CSV row (the portal's own format), with the id given. */
export const portalRow = (id = 10000092) =>
  `${id},HY189866,03/18/2015 07:44:00 PM,047XX W OHIO ST,041A,BATTERY,AGGRAVATED: HANDGUN,STREET,false,false,1111,011,28,25,04B,1144606,1903566,2015,02/10/2018 03:50:01 PM,41.891398861,-87.744384567,"(41.891398861, -87.744384567)"`;

/**
 * A test file's database with `rows` generated crimes, made before its tests and dropped after:
 * `const data = crimeDatabase(6_000)`, then `data.db` inside the tests.
 */
export function crimeDatabase(rows: number): { db: TestDatabase } {
  const holder = {} as { db: TestDatabase };
  beforeAll(async () => {
    holder.db = await createTestDatabase();
    await loadCrimes(holder.db.pool, rows);
  });
  afterAll(async () => {
    await holder.db?.drop();
  });
  return holder;
}
