// The portal's CSV after a spreadsheet has touched it (issue 36, part 3): a file
// re-saved by Excel has `1/1/2001 11:00` dates (24-hour, no seconds), TRUE/FALSE,
// codes without their leading zeros and CRLF line ends. It must load the same
// rows as the portal's own file, and still refuse what is truly malformed.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestCsv } from '../../../src/ingest/csv-ingest.js';
import { splitRecord } from '../../../src/ingest/csv-records.js';
import { CRIMES_SPEC, PORTAL_CSV_HEADER } from '../../../src/ingest/crimes/crime-table.js';
import { parsePortalRow, portalCsvSource } from '../../../src/ingest/crimes/portal-csv.js';
import { generateCrimes } from '../../../src/ingest/generate/crimes.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { parseSimpleCsv, tempDir } from '../../helpers/files.js';

const ROWS = 148;

/** `03/18/2015 07:44:09 PM` as Excel writes it back: `3/18/2015 19:44` (its default m/d/yyyy h:mm), or with a seconds format `3/18/2015 7:44:09 PM`. */
function excelTimestamp(portal: string, keepSeconds: boolean): string {
  if (portal === '') return '';
  const m = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2}) ([AP]M)$/.exec(portal)!;
  const [, mo, d, y, hh, mi, ss, ampm] = m;
  const date = `${Number(mo)}/${Number(d)}/${y}`;
  if (keepSeconds) return `${date} ${Number(hh)}:${mi}:${ss} ${ampm}`;
  const hour = (Number(hh) % 12) + (ampm === 'PM' ? 12 : 0);
  return `${date} ${hour}:${mi}`;
}

const numeric = (s: string) => (s === '' ? '' : String(Number(s)));
const excelQuote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** One portal row as Excel saves it after opening the portal's file. */
function excelRow(line: string, keepSeconds: boolean): string {
  const f = splitRecord(line) as string[];
  const out = [...f];
  out[2] = excelTimestamp(f[2], keepSeconds);
  out[4] = /^\d+$/.test(f[4]) ? numeric(f[4]) : f[4]; // IUCR 0486 -> 486; 041A stays text
  out[8] = f[8].toUpperCase();
  out[9] = f[9].toUpperCase();
  out[10] = numeric(f[10]); // beat 0111 -> 111
  out[11] = numeric(f[11]); // district 001 -> 1
  out[14] = /^\d+$/.test(f[14]) ? numeric(f[14]) : f[14]; // FBI code 06 -> 6; 08B stays text
  out[18] = excelTimestamp(f[18], keepSeconds);
  out[19] = numeric(f[19]); // 41.891398860 -> 41.89139886
  out[20] = numeric(f[20]);
  return out.map(excelQuote).join(',');
}

const tmp = tempDir();
let portalDb: TestDatabase;
let excelDb: TestDatabase;
let portalLines: string[];

beforeAll(async () => {
  [portalDb, excelDb] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  const file = tmp.file('portal.csv');
  await generateCrimes({ rows: ROWS, seed: 36, out: file });
  portalLines = readFileSync(file, 'utf8').split(/\r?\n/).filter(Boolean).slice(1);
  expect(portalLines).toHaveLength(ROWS);
  const s = await ingestCsv({
    pool: portalDb.pool,
    file,
    spec: CRIMES_SPEC,
    source: portalCsvSource,
    rejectsPath: tmp.file('portal.rejects.csv'),
  });
  expect(s).toMatchObject({
    rowsRead: ROWS,
    inserted: ROWS,
    rejected: 0,
    dialect: "read as the portal's format (MM/DD/YYYY hh:mm:ss AM/PM dates)",
  });
});
afterAll(async () => {
  await Promise.all([portalDb?.drop(), excelDb?.drop()]);
  tmp.remove();
});

/** Excel's CSV UTF-8: a BOM, CRLF line ends. */
const writeExcel = (name: string, rows: string[]) =>
  tmp.file(name, '\uFEFF' + [PORTAL_CSV_HEADER.join(','), ...rows].join('\r\n') + '\r\n');

const load = (pool: TestDatabase['pool'], file: string) =>
  ingestCsv({ pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath: `${file}.rejects.csv` });

/** Every row, whole, as JSON (updated_on to the minute when `minutes`). */
async function rows(db: TestDatabase, minutes = false): Promise<unknown[]> {
  const updated = minutes ? `to_jsonb(date_trunc('minute', c.updated_on))` : `to_jsonb(c.updated_on)`;
  const r = await db.pool.query(`SELECT jsonb_set(to_jsonb(c), '{updated_on}', ${updated}) AS row FROM crimes c ORDER BY id`);
  return r.rows.map((x) => x.row);
}

describe('ingest crimes from a CSV re-saved by a spreadsheet', () => {
  it('loads all 148 rows of an Excel re-save (24-hour dates without seconds, TRUE/FALSE, zeros stripped, CRLF) as the portal file loads them', async () => {
    const excel = portalLines.map((l) => excelRow(l, false));
    // the rewrite really is what the issue's file looked like
    expect(excel.some((l) => /^\d+,\w+,\d{1,2}\/\d{1,2}\/\d{4} \d{1,2}:\d{2},/.test(l))).toBe(true);
    expect(excel.every((l) => !/ [AP]M/.test(l) && !/,(true|false),/.test(l))).toBe(true);
    const file = writeExcel('excel.csv', excel);
    const s = await load(excelDb.pool, file);
    expect(s).toMatchObject({ rowsRead: ROWS, inserted: ROWS, rejected: 0 });
    expect(s.dialect).toMatch(
      /^read as the spreadsheet dialect \(M\/D\/YYYY 24-hour dates without seconds; TRUE\/FALSE; padding restored: \d+ beats, 148 districts, \d+ IUCR codes, \d+ FBI codes\)$/,
    );

    // whole rows: ids, dates and every other column land as from the portal's file; Excel's
    // default format drops Updated On's seconds, so that one column agrees to the minute
    expect(await rows(excelDb, true)).toEqual(await rows(portalDb, true));
    const seconds = await excelDb.pool.query(`SELECT count(*)::int AS n FROM crimes WHERE updated_on <> date_trunc('minute', updated_on)`);
    expect(seconds.rows[0].n).toBe(0);
  });

  it('loads the re-save identically, Updated On included, when the dates kept their seconds (M/D/YYYY h:mm:ss AM/PM)', async () => {
    await excelDb.pool.query('TRUNCATE crimes');
    const s = await load(
      excelDb.pool,
      writeExcel(
        'excel-seconds.csv',
        portalLines.map((l) => excelRow(l, true)),
      ),
    );
    expect(s).toMatchObject({ rowsRead: ROWS, inserted: ROWS, rejected: 0 });
    expect(s.dialect).toMatch(/^read as the spreadsheet dialect \(M\/D\/YYYY AM\/PM dates with seconds; TRUE\/FALSE; padding restored/);
    expect(await rows(excelDb)).toEqual(await rows(portalDb));
    // loading it over the portal's rows changes nothing
    const again = await load(
      portalDb.pool,
      writeExcel(
        'excel-again.csv',
        portalLines.map((l) => excelRow(l, true)),
      ),
    );
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: ROWS, rejected: 0 });
  });

  it('names a mix, and still rejects the truly malformed with line and reason', async () => {
    await excelDb.pool.query('TRUNCATE crimes');
    const good = excelRow(portalLines[0], false);
    const f = splitRecord(good) as string[];
    const spoilt = (i: number, v: string) =>
      f
        .map((x, j) => (j === i ? v : x))
        .map(excelQuote)
        .join(',');
    const bad: [string, string][] = [
      [spoilt(2, '13/45/2019 11:00'), 'Date: "13/45/2019 11:00" is not a real date and time'],
      [spoilt(8, 'yes'), 'Arrest: "yes" is not true or false'],
      [spoilt(10, '12a'), 'Beat: "12a" is not a whole number'],
      [spoilt(2, '2/30/2019 11:00'), 'Date: "2/30/2019 11:00" is not a real date and time'],
      [spoilt(18, '2/3/2019 24:00'), 'Updated On: "2/3/2019 24:00" is not a real date and time'],
      [spoilt(2, '30/1/2019'), 'Date: "30/1/2019" is not MM/DD/YYYY hh:mm:ss AM/PM (or M/D/YYYY H:MM as a spreadsheet saves it)'],
    ];
    const file = writeExcel('mixed.csv', [good, ...bad.map((b) => b[0]), portalLines[1]]);
    const s = await load(excelDb.pool, file);
    expect(s).toMatchObject({ rowsRead: 8, inserted: 2, rejected: 6 });
    expect(s.dialect).toMatch(
      /^read as a mix: 1 row in the portal's format, 1 in the spreadsheet dialect \(M\/D\/YYYY 24-hour dates without seconds; TRUE\/FALSE; padding restored: (1 beat, )?1 district/,
    );
    const rejects = parseSimpleCsv(readFileSync(s.rejectsPath!, 'utf8'));
    expect(rejects.slice(1).map((r) => [r[0], r[1]])).toEqual(bad.map((b, i) => [String(i + 3), b[1]]));
  });
});

describe('the spreadsheet dialect, value by value', () => {
  const base = splitRecord(
    '10000092,HY189866,03/18/2015 07:44:00 PM,047XX W OHIO ST,041A,BATTERY,AGGRAVATED: HANDGUN,STREET,false,false,1111,011,28,25,04B,1144606,1903566,2015,02/10/2018 03:50:01 PM,41.891398861,-87.744384567,"(41.891398861, -87.744384567)"',
  ) as string[];
  const values = (change: Record<number, string>) => {
    const r = parsePortalRow(base.map((v, i) => change[i] ?? v));
    if ('reason' in r) throw new Error(r.reason);
    return r.values.split('\t');
  };

  it('reads M/D/YYYY with 24-hour or AM/PM times, with or without seconds, for Date and Updated On', () => {
    expect(values({ 2: '3/18/2015 19:44' })[2]).toBe('2015-03-18 19:44:00');
    expect(values({ 2: '3/18/2015 0:05' })[2]).toBe('2015-03-18 00:05:00');
    expect(values({ 2: '3/18/2015 7:44 PM' })[2]).toBe('2015-03-18 19:44:00');
    expect(values({ 2: '3/18/2015 12:10:30 am' })[2]).toBe('2015-03-18 00:10:30');
    expect(values({ 18: '2/10/2018 15:50:01' })[18]).toBe('2018-02-10 15:50:01');
    expect(values({ 18: '2/10/2018 15:50' })[18]).toBe('2018-02-10 15:50:00');
  });

  it('reads any case of true/false and restores the zeros the portal pads with', () => {
    const v = values({ 4: '486', 8: 'TRUE', 9: 'False', 10: '111', 11: '1', 14: '6' });
    expect([v[4], v[8], v[9], v[10], v[11], v[14]]).toEqual(['0486', 'true', 'false', '111', '1', '06']);
    expect(values({ 4: '41A', 14: '8B' }).filter((_, i) => i === 4 || i === 14)).toEqual(['041A', '08B']);
    expect(values({ 4: '143A', 14: '15' }).filter((_, i) => i === 4 || i === 14)).toEqual(['143A', '15']);
    expect(values({ 4: '5', 14: '26' }).filter((_, i) => i === 4 || i === 14)).toEqual(['0005', '26']);
  });

  it('refuses an AM/PM hour of 13', () => {
    expect(parsePortalRow(base.map((v, i) => (i === 2 ? '3/18/2015 13:00 PM' : v)))).toEqual({
      reason: 'Date: "3/18/2015 13:00 PM" is not a real date and time',
    });
  });
});
