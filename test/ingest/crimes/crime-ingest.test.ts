import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestCsv } from '../../../src/ingest/csv-ingest.js';
import { CRIMES_SPEC, PORTAL_CSV_HEADER } from '../../../src/ingest/crimes/crime-table.js';
import { portalCsvSource } from '../../../src/ingest/crimes/portal-csv.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { parseSimpleCsv, tempDir } from '../../helpers/files.js';

const HEADER = PORTAL_CSV_HEADER.join(',');
// Tricky but valid rows as the portal writes them: quoted fields with commas and
// quotes, empty coordinates, zero-padded districts, alphanumeric IUCR/FBI codes.
const GOOD = [
  '11706917,JC287103,05/31/2019 11:55:00 PM,052XX W HURON ST,143A,WEAPONS VIOLATION,UNLAWFUL POSS OF HANDGUN,STREET,true,false,1524,015,37,25,15,,,2019,06/07/2019 04:05:48 PM,,,',
  '10000092,HY189866,03/18/2015 07:44:00 PM,047XX W OHIO ST,041A,BATTERY,AGGRAVATED: HANDGUN,STREET,false,false,1111,011,28,25,04B,1144606,1903566,2015,02/10/2018 03:50:01 PM,41.891398861,-87.744384567,"(41.891398861, -87.744384567)"',
  '10000094,HY190059,03/18/2015 11:00:00 PM,066XX S MARSHFIELD AVE,4625,OTHER OFFENSE,PAROLE VIOLATION,"SCHOOL, PUBLIC, BUILDING",true,false,0725,007,15,67,26,1166468,1860715,2015,02/10/2018 03:50:01 PM,41.773371528,-87.665319468,"(41.773371528, -87.665319468)"',
  '10000095,HY190052,03/18/2015 12:00:00 AM,044XX S LAKE PARK AVE,0486,BATTERY,DOMESTIC BATTERY SIMPLE,"CTA ""L"" TRAIN",false,true,0222,002,4,39,08B,1185075,1875622,2015,02/10/2018 03:50:01 PM,41.813861248,-87.596642837,"(41.813861248, -87.596642837)"',
];
const BAD = [
  [
    '10000096,HY190054,13/45/2015 11:00:00 PM,051XX S WABASH AVE,0460,BATTERY,SIMPLE,APARTMENT,false,false,0225,002,3,40,08B,,,2015,02/10/2018 03:50:01 PM,,,',
    'Date: "13/45/2015 11:00:00 PM" is not a real date and time',
  ],
  [
    '10000097,HY190055,03/18/2015 10:00:00 PM,051XX S WABASH AVE,0460,BATTERY,SIMPLE,APARTMENT,yes,false,0225,002,3,40,08B,,,2015,02/10/2018 03:50:01 PM,,,',
    'Arrest: "yes" is not true or false',
  ],
  ['10000098,HY190056,03/18/2015 10:00:00 PM,051XX S WABASH AVE', 'expected 22 fields, found 4'],
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

const load = (name: string, lines: string[], batchSize?: number) =>
  ingestCsv({
    pool: db.pool,
    file: tmp.file(name, [HEADER, ...lines].join('\r\n') + '\r\n'),
    spec: CRIMES_SPEC,
    source: portalCsvSource,
    rejectsPath: tmp.file(`${name}.rejects.csv`),
    batchSize,
  });

describe('ingest crimes from the portal CSV', () => {
  it('loads good rows exactly and sends bad ones to the reject file with line and reason', async () => {
    const lines = [GOOD[0], BAD[0][0], GOOD[1], BAD[1][0], GOOD[2], BAD[2][0], GOOD[3]];
    const s = await load('first.csv', lines);
    expect(s).toMatchObject({ rowsRead: 7, inserted: 4, updated: 0, unchanged: 0, rejected: 3 });
    const rejects = parseSimpleCsv(readFileSync(s.rejectsPath!, 'utf8'));
    expect(rejects).toEqual([
      ['line', 'reason', 'raw'],
      ['3', BAD[0][1], BAD[0][0]],
      ['5', BAD[1][1], BAD[1][0]],
      ['7', BAD[2][1], BAD[2][0]],
    ]);

    const { rows } = await db.pool.query(
      `SELECT id, to_char(date, 'YYYY-MM-DD HH24:MI:SS') AS date, location_description, arrest, domestic, beat, district,
              iucr, fbi_code, x_coordinate, latitude, location FROM crimes ORDER BY id`,
    );
    expect(rows).toEqual([
      {
        id: 10000092,
        date: '2015-03-18 19:44:00',
        location_description: 'STREET',
        arrest: false,
        domestic: false,
        beat: 1111,
        district: 11,
        iucr: '041A',
        fbi_code: '04B',
        x_coordinate: 1144606,
        latitude: 41.891398861,
        location: '(41.891398861, -87.744384567)',
      },
      {
        id: 10000094,
        date: '2015-03-18 23:00:00',
        location_description: 'SCHOOL, PUBLIC, BUILDING',
        arrest: true,
        domestic: false,
        beat: 725,
        district: 7,
        iucr: '4625',
        fbi_code: '26',
        x_coordinate: 1166468,
        latitude: 41.773371528,
        location: '(41.773371528, -87.665319468)',
      },
      {
        id: 10000095,
        date: '2015-03-18 00:00:00',
        location_description: 'CTA "L" TRAIN',
        arrest: false,
        domestic: true,
        beat: 222,
        district: 2,
        iucr: '0486',
        fbi_code: '08B',
        x_coordinate: 1185075,
        latitude: 41.813861248,
        location: '(41.813861248, -87.596642837)',
      },
      {
        id: 11706917,
        date: '2019-05-31 23:55:00',
        location_description: 'STREET',
        arrest: true,
        domestic: false,
        beat: 1524,
        district: 15,
        iucr: '143A',
        fbi_code: '15',
        x_coordinate: null,
        latitude: null,
        location: null,
      },
    ]);
  });

  it('re-running the same file changes nothing', async () => {
    const before = await db.pool.query('SELECT * FROM crimes ORDER BY id');
    const s = await load('again.csv', [GOOD[0], BAD[0][0], GOOD[1], BAD[1][0], GOOD[2], BAD[2][0], GOOD[3]]);
    expect(s).toMatchObject({ inserted: 0, updated: 0, unchanged: 4, rejected: 3 });
    const after = await db.pool.query('SELECT * FROM crimes ORDER BY id');
    expect(after.rows).toEqual(before.rows);
  });

  it('replaces a row only with a newer updated_on; inside one file the newest wins', async () => {
    const newer = GOOD[0].replace('UNLAWFUL POSS OF HANDGUN', 'RECLASSIFIED').replace('06/07/2019 04:05:48 PM', '07/01/2019 09:00:00 AM');
    const older = GOOD[1].replace('AGGRAVATED: HANDGUN', 'STALE').replace('02/10/2018 03:50:01 PM', '01/01/2017 09:00:00 AM');
    const newest = GOOD[0].replace('UNLAWFUL POSS OF HANDGUN', 'NEWEST').replace('06/07/2019 04:05:48 PM', '08/01/2019 09:00:00 AM');
    // batch size 2 puts `newest` and `newer` in different batches and the same id twice in one
    const s = await load('updates.csv', [newest, older, newer, newer], 2);
    expect(s).toMatchObject({ rowsRead: 4, inserted: 0, updated: 1, rejected: 0 });
    const { rows } = await db.pool.query(
      `SELECT id, description, to_char(updated_on, 'YYYY-MM-DD HH24:MI') AS updated_on FROM crimes WHERE id IN (11706917, 10000092) ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 10000092, description: 'AGGRAVATED: HANDGUN', updated_on: '2018-02-10 15:50' },
      { id: 11706917, description: 'NEWEST', updated_on: '2019-08-01 09:00' },
    ]);
  });

  it('refuses a file whose header is not the portal export, naming the column', async () => {
    const file = tmp.file('wrong.csv', 'ID,Case Number,When\n1,2,3\n');
    await expect(
      ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath: tmp.file('w.rejects') }),
    ).rejects.toThrow(/column 3 is "When" where "Date" was expected/);
  });

  it('says so when the file does not exist', async () => {
    await expect(
      ingestCsv({
        pool: db.pool,
        file: tmp.file('missing.csv'),
        spec: CRIMES_SPEC,
        source: portalCsvSource,
        rejectsPath: tmp.file('m.rejects'),
      }),
    ).rejects.toThrow(/Cannot read .*missing\.csv: no such file/);
  });
});

describe('ingest_runs', () => {
  it('records each load with its counts and outcome', async () => {
    const { rows } = await db.pool.query(
      `SELECT source, status, loaded, updated, unchanged, rejected, detail FROM ingest_runs ORDER BY id`,
    );
    expect(rows.slice(0, 3)).toEqual([
      { source: 'crimes from first.csv', status: 'done', loaded: 4, updated: 0, unchanged: 0, rejected: 3, detail: null },
      { source: 'crimes from again.csv', status: 'done', loaded: 0, updated: 0, unchanged: 4, rejected: 3, detail: null },
      { source: 'crimes from updates.csv', status: 'done', loaded: 0, updated: 1, unchanged: 3, rejected: 0, detail: null },
    ]);
    expect(rows[3]).toMatchObject({ source: 'crimes from wrong.csv', status: 'failed' });
    expect(rows[3].detail).toMatch(/unexpected header/);
  });
});
