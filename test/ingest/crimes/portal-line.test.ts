// A portal line in the portal's own form is staged as it is, read by PostgreSQL
// as CSV; every other line goes through parseRow. Both roads must store the same
// values: checked by loading the same file both ways and comparing every column
// of every row, over generated rows and over the edge forms either road could
// read differently (quotes, escaped quotes, empty fields, midnight and noon,
// leap days, negative and long decimals, codes to pad, spaces to trim).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { ingestCsv, type CsvSource } from '../../../src/ingest/csv-ingest.js';
import { CRIMES_SPEC, PORTAL_CSV_HEADER } from '../../../src/ingest/crimes/crime-table.js';
import { portalCsvSource } from '../../../src/ingest/crimes/portal-csv.js';
import { isPortalLine } from '../../../src/ingest/crimes/portal-line.js';
import { generateCrimes } from '../../../src/ingest/generate/crimes.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { tempDir } from '../../helpers/files.js';
import { portalRow } from '../../helpers/crime-data.js';

const row = (id: number, replace: [string, string][]) => replace.reduce((line, [a, b]) => line.replace(a, b), portalRow(id));

// [line, taken as it is?]
const EDGES: [string, boolean][] = [
  [portalRow(1), true],
  [row(2, [['STREET', '"SCHOOL, PUBLIC, BUILDING"']]), true],
  [row(3, [['STREET', '"CTA ""L"" TRAIN"']]), true],
  [row(4, [['STREET', '"""QUOTED"""']]), true],
  [row(5, [['03/18/2015 07:44:00 PM', '03/18/2015 12:00:00 AM']]), true], // midnight
  [row(6, [['03/18/2015 07:44:00 PM', '03/18/2015 12:30:59 PM']]), true], // noon
  [row(7, [['03/18/2015 07:44:00 PM', '02/29/2016 11:59:59 PM']]), true], // leap day
  [row(8, [['03/18/2015 07:44:00 PM', '02/29/2015 11:59:59 PM']]), false], // not a date: refused by parseRow
  [row(9, [['03/18/2015 07:44:00 PM', '3/18/2015 19:44']]), false], // spreadsheet dialect
  [row(10, [[',1144606,1903566,', ',-0.5,0.00000000000000000001,']]), true],
  [row(11, [[',1144606,1903566,', ',-0.0,123456789012345.123456789,']]), false], // a negative zero
  [row(12, [['41.891398861,-87.744384567', '89.9999999999,-179.99999']]), true],
  [row(13, [['41.891398861,-87.744384567', '90.0,-87.7']]), false], // the edge of the range: parseRow decides
  [row(14, [[',041A,', ',41A,']]), false], // IUCR to pad
  [row(15, [[',04B,', ',4B,']]), false], // FBI code to pad
  [row(16, [[',04B,', ',X,']]), true], // not a code parseRow pads
  [row(17, [[',1111,011,', ',111,11,']]), false], // beat and district without their zeros
  [row(18, [[',false,false,', ',TRUE,,']]), false],
  [row(19, [[',false,false,', ',,true,']]), true],
  [row(20, [[',HY189866,', ', HY189866,']]), false], // a space to trim
  [row(21, [[',HY189866,', ',"",']]), false], // a quoted empty field
  [
    row(22, [
      [',HY189866,', ',,'],
      [',28,25,', ',,,'],
      [',02/10/2018 03:50:01 PM,', ',,'],
    ]),
    true,
  ], // empty fields: NULL
  [row(23, [['047XX W OHIO ST', 'CAFÉ ÀLA – 東京 ST']]), true],
  [row(31, [['047XX W OHIO ST', '東京']]), false], // not ASCII at an end: parseRow trims what it must
  [row(24, [['HY189866', `"HY${'9'.repeat(501)}"`]]), false], // too long: refused by parseRow
  [row(25, [[',2015,', ',02015,']]), true],
  [row(26, [[',28,', ',0028,']]), true],
  [`027,${portalRow(27).slice(3)}`, false], // a zero-padded id
  [portalRow(28) + ',', false], // 23 fields
  [portalRow(29).replace('"(41.891398861, -87.744384567)"', '"(41.8'), false], // a quote left open
  [row(30, [[',BATTERY,', ',BAT"TERY,']]), false], // a stray quote
];

let db: TestDatabase;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

/** The portal source with every line split and read by parseRow. */
const fieldByField: CsvSource = { header: PORTAL_CSV_HEADER, parseRow: portalCsvSource.parseRow };

async function loadBothWays(file: string): Promise<{ asIs: number; differing: number; rows: number }> {
  const load = async (source: CsvSource, table: string) => {
    await db.pool.query('TRUNCATE crimes');
    const s = await ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source, rejectsPath: `${file}.${table}.rejects.csv` });
    await db.pool.query(`DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} AS SELECT * FROM crimes`);
    return s;
  };
  const split = await load(fieldByField, 'split_rows');
  const asIs = await load(portalCsvSource, 'as_is_rows');
  expect(asIs).toMatchObject({ inserted: split.inserted, rejected: split.rejected, rowsRead: split.rowsRead });
  const rejects = (table: string) =>
    existsSync(`${file}.${table}.rejects.csv`) ? readFileSync(`${file}.${table}.rejects.csv`, 'utf8') : '';
  expect(rejects('as_is_rows')).toBe(rejects('split_rows'));
  // every column, compared as text too (a float's sign of zero, a timestamp's seconds)
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS n FROM ((SELECT a::text FROM as_is_rows a EXCEPT ALL SELECT s::text FROM split_rows s)
       UNION ALL (SELECT s::text FROM split_rows s EXCEPT ALL SELECT a::text FROM as_is_rows a)) d`,
  );
  return { asIs: asIs.inserted, differing: rows[0].n, rows: split.inserted };
}

describe('portal lines staged as they are', () => {
  it('takes exactly the lines in the portal form', () => {
    expect(EDGES.map(([line]) => [line.slice(0, 9), isPortalLine(line)])).toEqual(EDGES.map(([line, taken]) => [line.slice(0, 9), taken]));
  });

  it('stores the same values as reading every field, over the edge forms', async () => {
    const file = tmp.file('edges.csv', [PORTAL_CSV_HEADER.join(','), ...EDGES.map(([line]) => line)].join('\n') + '\n');
    const r = await loadBothWays(file);
    expect(r.differing).toBe(0);
    expect(r.rows).toBeGreaterThan(20);
  });

  it('stores the same values as reading every field, over 5,000 generated rows', async () => {
    const file = tmp.file('generated.csv');
    await generateCrimes({ rows: 5_000, seed: 4, out: file });
    expect(await loadBothWays(file)).toEqual({ asIs: 5_000, differing: 0, rows: 5_000 });
  });
});
