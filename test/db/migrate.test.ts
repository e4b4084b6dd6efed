import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => db?.drop());

describe('migrate', () => {
  it('applies every migration once; a second run changes nothing', async () => {
    const all = readMigrations().map((m) => m.version);
    expect(await migrate(db.pool)).toEqual(all);
    expect(await migrate(db.pool)).toEqual([]);
    const { rows } = await db.pool.query('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(all);
  });

  it('refuses to run when an applied migration was edited', async () => {
    const edited = readMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'changed' } : m));
    await expect(migrate(db.pool, edited)).rejects.toThrow(/001_app_state was changed after it was applied/);
  });

  it('creates the 22-column crimes table and the 77 community areas', async () => {
    const cols = await db.pool.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'crimes' ORDER BY ordinal_position`,
    );
    expect(cols.rows).toHaveLength(22);
    expect(cols.rows.find((c) => c.column_name === 'date')?.data_type).toBe('timestamp without time zone');
    expect(cols.rows.find((c) => c.column_name === 'arrest')?.data_type).toBe('boolean');
    expect(cols.rows.find((c) => c.column_name === 'district')?.data_type).toBe('integer');
    const areas = await db.pool.query('SELECT count(*) AS n, min(name) FILTER (WHERE community_area = 76) AS ohare FROM community_areas');
    expect(areas.rows[0]).toEqual({ n: 77, ohare: "O'Hare" });
  });
});
