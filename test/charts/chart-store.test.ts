// Chart images kept in PostgreSQL: another process (a new store on the same
// database, as after a restart or on another replica) serves what one put,
// until it expires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartStore } from '../../src/charts/chart-store.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/wait.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('ChartStore in the database', () => {
  it('a chart put by one process is served by another (a restart), and not after it expired', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const id = ChartStore.inDatabase(db.pool, createMemoryLogger()).put(png);
    await pollUntil(
      async () => ((await db.pool.query('SELECT 1 FROM chart_images WHERE id = $1', [id])).rowCount ? true : undefined),
      5_000,
      'the chart written',
    );
    const afterRestart = ChartStore.inDatabase(db.pool, createMemoryLogger());
    expect(await afterRestart.get(id)).toEqual(png);
    await db.pool.query(`UPDATE chart_images SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect(await afterRestart.get(id)).toBeUndefined();
    expect(await afterRestart.get('0'.repeat(32))).toBeUndefined();
  });
});
