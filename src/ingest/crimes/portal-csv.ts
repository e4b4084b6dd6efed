// One row of the portal's CSV export -> the crimes table's 22 values.
import { toCopyLine } from '../copy-text.js';
import type { CsvSource, RowResult } from '../csv-ingest.js';
import { FieldError, booleanField, integerField, numberField, portalTimestampField, textField } from '../field-parsers.js';
import { PORTAL_CSV_HEADER } from './crime-table.js';

export function parsePortalRow(f: string[]): RowResult {
  if (f.length !== PORTAL_CSV_HEADER.length) {
    return { reason: `expected ${PORTAL_CSV_HEADER.length} fields, found ${f.length}` };
  }
  try {
    const id = integerField('ID', f[0], true)!;
    if (id <= 0) throw new FieldError(`ID: ${id} is not a positive number`);
    return {
      values: toCopyLine([
        id,
        textField('Case Number', f[1]),
        portalTimestampField('Date', f[2], true),
        textField('Block', f[3]),
        textField('IUCR', f[4]),
        textField('Primary Type', f[5]),
        textField('Description', f[6]),
        textField('Location Description', f[7]),
        booleanField('Arrest', f[8]),
        booleanField('Domestic', f[9]),
        integerField('Beat', f[10]),
        integerField('District', f[11]),
        integerField('Ward', f[12]),
        integerField('Community Area', f[13]),
        textField('FBI Code', f[14]),
        numberField('X Coordinate', f[15]),
        numberField('Y Coordinate', f[16]),
        integerField('Year', f[17]),
        portalTimestampField('Updated On', f[18]),
        numberField('Latitude', f[19], -90, 90),
        numberField('Longitude', f[20], -180, 180),
        textField('Location', f[21]),
      ]),
    };
  } catch (error) {
    if (error instanceof FieldError) return { reason: error.message };
    throw error;
  }
}

export const portalCsvSource: CsvSource = { header: PORTAL_CSV_HEADER, parseRow: parsePortalRow };
