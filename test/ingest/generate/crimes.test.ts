import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apportion, generateCrimes } from '../../../src/ingest/generate/crimes.js';
import { ingestCsv } from '../../../src/ingest/csv-ingest.js';
import { CRIMES_SPEC } from '../../../src/ingest/crimes/crime-table.js';
import { portalCsvSource } from '../../../src/ingest/crimes/portal-csv.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { tempDir } from '../../helpers/files.js';

const ROWS = 60_000;
const tmp = tempDir();
let db: TestDatabase;
let file: string;

beforeAll(async () => {
  db = await createTestDatabase();
  file = tmp.file('crimes.csv');
  await generateCrimes({ rows: ROWS, seed: 42, out: file });
  const summary = await ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath: tmp.file('r.csv') });
  // every generated row is valid portal CSV: nothing rejected, nothing lost
  expect(summary).toMatchObject({ rowsRead: ROWS, inserted: ROWS, rejected: 0 });
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

const one = async <T = Record<string, unknown>>(sql: string): Promise<T> => (await db.pool.query(sql)).rows[0] as T;

describe('generate crimes', () => {
  it('is deterministic: same seed, same file; another seed, another file', async () => {
    const again = tmp.file('again.csv');
    const other = tmp.file('other.csv');
    await generateCrimes({ rows: 5_000, seed: 42, out: again });
    await generateCrimes({ rows: 5_000, seed: 42, out: tmp.file('again2.csv') });
    await generateCrimes({ rows: 5_000, seed: 43, out: other });
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(tmp.file('again2.csv'), 'utf8'));
    expect(readFileSync(other, 'utf8')).not.toBe(readFileSync(again, 'utf8'));
  });

  it('covers 2001-2025 with the real yearly trend (2001 about twice 2021)', async () => {
    const r = await one<{ min: number; max: number; y2001: number; y2021: number }>(
      `SELECT min(year), max(year), count(*) FILTER (WHERE year = 2001) AS y2001, count(*) FILTER (WHERE year = 2021) AS y2021 FROM crimes`,
    );
    expect([r.min, r.max]).toEqual([2001, 2025]);
    expect(r.y2001 / r.y2021).toBeGreaterThan(2.0);
    expect(r.y2001 / r.y2021).toBeLessThan(2.6);
  });

  it('has THEFT and BATTERY leading, and only real primary types', async () => {
    const { rows } = await db.pool.query(`SELECT primary_type, count(*) AS n FROM crimes GROUP BY 1 ORDER BY 2 DESC`);
    expect(rows.slice(0, 2).map((r) => r.primary_type)).toEqual(['THEFT', 'BATTERY']);
    const theftShare = rows[0].n / ROWS;
    expect(theftShare).toBeGreaterThan(0.18);
    expect(theftShare).toBeLessThan(0.25);
    const facts = JSON.parse(readFileSync('fixtures/data/chicago/crime-types.json', 'utf8')) as { types: { primaryType: string }[] };
    const known = new Set(facts.types.map((t) => t.primaryType));
    expect(rows.every((r) => known.has(r.primary_type))).toBe(true);
  });

  it('keeps IUCR and FBI codes consistent with the type', async () => {
    const r = await one<{ n: number }>(
      `SELECT count(*) AS n FROM (SELECT iucr FROM crimes GROUP BY iucr HAVING count(DISTINCT primary_type) > 1 AND iucr NOT IN ('0281', '0261', '0266')) x`,
    );
    expect(r.n).toBe(0); // an IUCR code names one type (the sexual assault codes span the 2019 rename)
    const homicide = await one<{ codes: string[] }>(
      `SELECT array_agg(DISTINCT fbi_code ORDER BY fbi_code) AS codes FROM crimes WHERE primary_type = 'HOMICIDE'`,
    );
    expect(homicide.codes.every((c) => c.startsWith('01'))).toBe(true);
  });

  it('has arrest rates by type: narcotics nearly always, theft rarely', async () => {
    const r = await one<{ narcotics: number; theft: number }>(`SELECT
      avg(arrest::int) FILTER (WHERE primary_type = 'NARCOTICS') AS narcotics,
      avg(arrest::int) FILTER (WHERE primary_type = 'THEFT') AS theft FROM crimes`);
    expect(Number(r.narcotics)).toBeGreaterThan(0.95);
    expect(Number(r.theft)).toBeLessThan(0.2);
  });

  it('uses 22 districts, ~275-285 beats, 50 wards and 77 community areas, places near their district', async () => {
    const r = await one<{ districts: number; beats: number; wards: number; areas: number; bad_beats: number }>(`SELECT
      count(DISTINCT district) AS districts, count(DISTINCT beat) AS beats, count(DISTINCT ward) AS wards,
      count(DISTINCT community_area) AS areas, count(*) FILTER (WHERE beat / 100 <> district) AS bad_beats FROM crimes`);
    expect(r).toMatchObject({ districts: 22, wards: 50, areas: 77, bad_beats: 0 });
    expect(r.beats).toBeGreaterThanOrEqual(270);
    expect(r.beats).toBeLessThanOrEqual(285);
    const inside = await one<{ outside: number }>(
      `SELECT count(*) FILTER (WHERE latitude NOT BETWEEN 41.60 AND 42.05 OR longitude NOT BETWEEN -87.95 AND -87.50) AS outside FROM crimes`,
    );
    expect(inside.outside / ROWS).toBeLessThan(0.002);
  });

  it('is seasonal (July above February) and quiet at 5 am', async () => {
    const r = await one<{ jul: number; feb: number; h5: number; h19: number }>(`SELECT
      count(*) FILTER (WHERE extract(month FROM date) = 7) AS jul, count(*) FILTER (WHERE extract(month FROM date) = 2) AS feb,
      count(*) FILTER (WHERE extract(hour FROM date) = 5) AS h5, count(*) FILTER (WHERE extract(hour FROM date) = 19) AS h19 FROM crimes`);
    expect(r.jul).toBeGreaterThan(r.feb * 1.2);
    expect(r.h19).toBeGreaterThan(r.h5 * 2.5);
  });

  it('leaves a small share of values missing, as the real export does', async () => {
    const r = await one<{ no_coords: number; no_area_2001: number; no_area_later: number; n2001: number }>(`SELECT
      count(*) FILTER (WHERE latitude IS NULL) AS no_coords,
      count(*) FILTER (WHERE community_area IS NULL AND year = 2001) AS no_area_2001,
      count(*) FILTER (WHERE community_area IS NULL AND year > 2001) AS no_area_later,
      count(*) FILTER (WHERE year = 2001) AS n2001 FROM crimes`);
    expect(r.no_coords / ROWS).toBeGreaterThan(0.005);
    expect(r.no_coords / ROWS).toBeLessThan(0.02);
    expect(r.no_area_2001 / r.n2001).toBeGreaterThan(0.7);
    expect(r.no_area_later / ROWS).toBeLessThan(0.002);
  });

  it('writes grid-correct blocks and unique ids and case numbers', async () => {
    const r = await one<{ bad_blocks: number; ids: number; cases: number }>(`SELECT
      count(*) FILTER (WHERE block !~ '^(0000X|\\d{3}XX) [NSEW] [A-Z0-9 ]+$') AS bad_blocks,
      count(DISTINCT id) AS ids, count(DISTINCT case_number) AS cases FROM crimes`);
    expect(r).toEqual({ bad_blocks: 0, ids: ROWS, cases: ROWS });
  });
});

describe('apportion', () => {
  it('splits a total into whole numbers that add up exactly', () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(7, [0, 2, 5]).reduce((a, b) => a + b, 0)).toBe(7);
  });
});
