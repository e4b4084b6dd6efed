// The plan side's column facts (src/db/crime-columns.ts) are the crimes table's
// columns, and the ingester's own list for its COPY is the same list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRIME_COLUMNS } from '../../src/db/crime-columns.js';
import { CRIME_COLUMNS as INGEST_COLUMNS } from '../../src/ingest/crimes/crime-table.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('crime columns', () => {
  it('are the crimes table of the migrations, in its order, and the ingester loads the same list', async () => {
    const { rows } = await db.pool.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'crimes' ORDER BY ordinal_position",
    );
    expect(rows.map((r) => r.column_name)).toEqual([...CRIME_COLUMNS]);
    expect([...INGEST_COLUMNS]).toEqual([...CRIME_COLUMNS]);
  });
});
