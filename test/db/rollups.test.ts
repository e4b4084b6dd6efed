// The rollups stay exact on every change of crimes, in the writer's own
// transaction: an ingest batch (new rows and newer versions of stored ones),
// a sync's update, a delete, a truncate, and a rolled-back load.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROLLUPS, type Rollup } from '../../src/db/rollups.js';
import { ingestCsv } from '../../src/ingest/csv-ingest.js';
import { CRIMES_SPEC, PORTAL_CSV_HEADER } from '../../src/ingest/crimes/crime-table.js';
import { portalCsvSource } from '../../src/ingest/crimes/portal-csv.js';
import { crimeDatabase, portalRow } from '../helpers/crime-data.js';
import { tempDir } from '../helpers/files.js';

const data = crimeDatabase(5_000);

// counted here in TypeScript, apart from the migration's SQL, so that a mistake in either shows
const rollupKey = (r: Rollup): string[] => (r.grain === 'all' ? [...r.columns] : ['date', ...r.columns]);
function countedAfresh(r: Rollup): string {
  const key = r.grain === 'all' ? [...r.columns] : [`crime_rollup_date('${r.grain}', date)`, ...r.columns];
  return `SELECT ${key.join(', ')}, count(*)::int AS n FROM crimes GROUP BY ${key.map((_, i) => i + 1).join(', ')}`;
}

/** Rows where a rollup differs from counting crimes afresh (both directions). */
async function drift(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of ROLLUPS) {
    const fresh = countedAfresh(r);
    const stored = `SELECT ${rollupKey(r).join(', ')}, n FROM ${r.table}`;
    const { rows } = await data.db.pool.query(
      `SELECT count(*)::int AS n FROM ((${fresh} EXCEPT ALL ${stored}) UNION ALL (${stored} EXCEPT ALL ${fresh})) d`,
    );
    out[r.table] = rows[0].n;
  }
  return out;
}

const none = () => Object.fromEntries(ROLLUPS.map((r) => [r.table, 0]));
const total = async (table: string) => Number((await data.db.pool.query(`SELECT coalesce(sum(n), 0) AS n FROM ${table}`)).rows[0].n);

describe('crime rollups', () => {
  it('the catalog the triggers read is the list the compiler reads', async () => {
    const { rows } = await data.db.pool.query('SELECT name, grain, columns FROM crime_rollups ORDER BY name');
    expect(rows).toEqual(
      [...ROLLUPS].sort((a, b) => a.table.localeCompare(b.table)).map((r) => ({ name: r.table, grain: r.grain, columns: [...r.columns] })),
    );
  });

  it('hold every incident after the load, and no empty group', async () => {
    expect(await drift()).toEqual(none());
    for (const r of ROLLUPS) {
      expect(await total(r.table)).toBe(5_000);
      expect((await data.db.pool.query(`SELECT count(*)::int AS n FROM ${r.table} WHERE n = 0`)).rows[0].n).toBe(0);
    }
  });

  it('follow an ingest batch that adds rows and replaces stored ones with newer versions', async () => {
    const tmp = tempDir();
    try {
      // a stored row comes back as ROBBERY, a year later, updated later; and two new rows
      const {
        rows: [old],
      } = await data.db.pool.query('SELECT id FROM crimes ORDER BY id LIMIT 1');
      const replaced = portalRow(old.id)
        .replace('BATTERY', 'ROBBERY')
        .replace('03/18/2015', '03/18/2016')
        .replace(',2015,02/10/2018', ',2016,11/30/2026');
      const file = tmp.file('batch.csv');
      writeFileSync(file, [PORTAL_CSV_HEADER.join(','), replaced, portalRow(90_000_001), portalRow(90_000_002)].join('\n') + '\n');
      const counts = await ingestCsv({
        pool: data.db.pool,
        file,
        spec: CRIMES_SPEC,
        source: portalCsvSource,
        rejectsPath: tmp.file('r.csv'),
      });
      expect(counts).toMatchObject({ inserted: 2, updated: 1 });
      expect(await drift()).toEqual(none());
      expect(await total('crimes_by_day')).toBe(5_002);
    } finally {
      tmp.remove();
    }
  });

  it('follow an update, a delete and a rolled-back change', async () => {
    await data.db.pool.query(
      "UPDATE crimes SET primary_type = 'THEFT', arrest = NOT coalesce(arrest, false), date = date + interval '7 hours' WHERE id % 7 = 0",
    );
    expect(await drift()).toEqual(none());
    await data.db.pool.query('DELETE FROM crimes WHERE id % 5 = 0');
    expect(await drift()).toEqual(none());
    const client = await data.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('UPDATE crimes SET ward = NULL, community_area = NULL WHERE id % 3 = 0');
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await drift()).toEqual(none());
    const left = Number((await data.db.pool.query('SELECT count(*) FROM crimes')).rows[0].count);
    for (const r of ROLLUPS) expect(await total(r.table)).toBe(left);
  });

  it('the reader login can read them and nothing more: no write, no rebuild', async () => {
    const reader = data.db.reader!.pool;
    expect(Number((await reader.query('SELECT sum(n) AS n FROM crimes_by_day')).rows[0].n)).toBeGreaterThan(0);
    // the functions and the catalog are not the reader's at all
    for (const sql of ['SELECT crime_rollups_rebuild()', 'SELECT * FROM crime_rollups'])
      await expect(reader.query(sql), sql).rejects.toThrow(/permission denied/);
    // a write meets the read-only session first (and has no privilege behind it)
    for (const sql of ['DELETE FROM crimes_by_day', 'UPDATE crimes_by_block SET n = n + 1'])
      await expect(reader.query(sql), sql).rejects.toThrow(/read-only transaction|permission denied/);
  });

  it('are emptied with crimes', async () => {
    await data.db.pool.query('TRUNCATE crimes');
    for (const r of ROLLUPS) expect(await total(r.table)).toBe(0);
  });
});
