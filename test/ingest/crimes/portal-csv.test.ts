import { describe, expect, it } from 'vitest';
import { parsePortalRow } from '../../../src/ingest/crimes/portal-csv.js';
import { parseSodaRecord } from '../../../src/ingest/crimes/soda-row.js';

// The real row from CHICAGO_DATA.md, split as the CSV reader splits it.
const REAL =
  '11706917,JC287103,05/31/2019 11:55:00 PM,052XX W HURON ST,143A,WEAPONS VIOLATION,UNLAWFUL POSS OF HANDGUN,STREET,true,false,1524,015,37,25,15,,,2019,06/07/2019 04:05:48 PM,,,'.split(
    ',',
  );

const values = (fields: string[]) => {
  const r = parsePortalRow(fields);
  if ('reason' in r) throw new Error(r.reason);
  return r.values.split('\t');
};

describe('parsePortalRow', () => {
  it('converts the real portal row exactly', () => {
    expect(values(REAL)).toEqual([
      '11706917',
      'JC287103',
      '2019-05-31 23:55:00',
      '052XX W HURON ST',
      '143A',
      'WEAPONS VIOLATION',
      'UNLAWFUL POSS OF HANDGUN',
      'STREET',
      'true',
      'false',
      '1524',
      '15',
      '37',
      '25',
      '15',
      '\\N',
      '\\N',
      '2019',
      '2019-06-07 16:05:48',
      '\\N',
      '\\N',
      '\\N',
    ]);
  });

  it('reads 12 AM as midnight and 12 PM as noon', () => {
    const at = (t: string) => values(REAL.map((f, i) => (i === 2 ? t : f)))[2];
    expect(at('01/01/2020 12:00:00 AM')).toBe('2020-01-01 00:00:00');
    expect(at('01/01/2020 12:30:00 PM')).toBe('2020-01-01 12:30:00');
    expect(at('02/29/2020 01:05:09 AM')).toBe('2020-02-29 01:05:09');
  });

  it('keeps alphanumeric codes as text and location text as published', () => {
    const row = [...REAL];
    row[14] = '08B';
    row[15] = '1165074';
    row[16] = '1875917';
    row[19] = '41.817229156';
    row[20] = '-87.637328162';
    row[21] = '(41.817229156, -87.637328162)';
    const v = values(row);
    expect(v[14]).toBe('08B');
    expect(v.slice(15, 17)).toEqual(['1165074', '1875917']);
    expect(v.slice(19)).toEqual(['41.817229156', '-87.637328162', '(41.817229156, -87.637328162)']);
  });

  it.each([
    [(r: string[]) => (r[2] = '13/45/2019 11:55:00 PM'), 'Date: "13/45/2019 11:55:00 PM" is not a real date and time'],
    [
      (r: string[]) => (r[2] = '2019-05-31 23:55'),
      'Date: "2019-05-31 23:55" is not MM/DD/YYYY hh:mm:ss AM/PM (or M/D/YYYY H:MM as a spreadsheet saves it)',
    ],
    [(r: string[]) => (r[2] = ''), 'Date is empty'],
    [(r: string[]) => (r[0] = 'abc'), 'ID: "abc" is not a whole number'],
    [(r: string[]) => (r[8] = 'yes'), 'Arrest: "yes" is not true or false'],
    [(r: string[]) => (r[11] = '1S'), 'District: "1S" is not a whole number'],
    [(r: string[]) => (r[19] = '141.9'), 'Latitude: 141.9 is outside -90..90'],
    [(r: string[]) => r.pop(), 'expected 22 fields, found 21'],
  ])('refuses a bad row with a specific reason (%#)', (spoil, reason) => {
    const row = [...REAL];
    spoil(row);
    expect(parsePortalRow(row)).toEqual({ reason });
  });
});

describe('parseSodaRecord', () => {
  it('gives the same values as the CSV export for the same incident', () => {
    const soda = {
      id: '11706917',
      case_number: 'JC287103',
      date: '2019-05-31T23:55:00.000',
      block: '052XX W HURON ST',
      iucr: '143A',
      primary_type: 'WEAPONS VIOLATION',
      description: 'UNLAWFUL POSS OF HANDGUN',
      location_description: 'STREET',
      arrest: true,
      domestic: false,
      beat: '1524',
      district: '015',
      ward: '37',
      community_area: '25',
      fbi_code: '15',
      year: '2019',
      updated_on: '2019-06-07T16:05:48.000',
    };
    expect(parseSodaRecord(soda)).toEqual(parsePortalRow(REAL));
  });

  it('turns a GeoJSON location into the export\'s "(lat, lon)" text', () => {
    const r = parseSodaRecord({
      id: '1',
      date: '2020-01-01T00:00:00.000',
      latitude: '41.8',
      longitude: '-87.6',
      location: { type: 'Point', coordinates: [-87.6, 41.8] },
    });
    expect('values' in r && r.values.split('\t').slice(19)).toEqual(['41.8', '-87.6', '(41.8, -87.6)']);
  });

  it('refuses a record without an id or with a bad timestamp', () => {
    expect(parseSodaRecord({ date: '2020-01-01T00:00:00.000' })).toEqual({ reason: 'id is empty' });
    expect(parseSodaRecord({ id: '5', date: '01/01/2020' })).toEqual({ reason: 'date: "01/01/2020" is not an ISO 8601 timestamp' });
  });
});
