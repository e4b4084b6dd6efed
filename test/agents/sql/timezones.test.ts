// Times are the database's wall-clock values, the same under any process TZ:
// read into a JS Date, January 2021 showed as "2020-12-31 16:00" in Shanghai.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql } from '../../../src/agents/sql/execute.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

let db: TestDatabase;
const savedTz = process.env.TZ;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  process.env.TZ = savedTz;
  await db?.drop();
});

describe('timestamps in answers', () => {
  it.each(['Asia/Shanghai', 'America/Chicago', 'UTC'])('are the same wall-clock text under TZ=%s', async (tz) => {
    process.env.TZ = tz;
    const r = await runSql(
      db.reader!.pool,
      "SELECT date_trunc('month', '2021-01-15 10:00'::timestamp) AS month, '2021-01-01 06:30:15.25'::timestamp AS at",
      5_000,
    );
    expect(r.rows).toEqual([['2021-01-01', '2021-01-01 06:30:15']]);
  });
});
