// One row of the portal's CSV export -> the crimes table's 22 values. The same
// file re-saved by a spreadsheet (Excel, LibreOffice, Sheets) is read too: its
// dates come back as `1/1/2001 11:00` (M/D/YYYY, 24-hour or AM/PM, seconds often
// dropped), its booleans as TRUE/FALSE and its codes without their leading
// zeros (beat 0111 -> 111, IUCR 0486 -> 486, FBI code 06 -> 6), with CRLF line
// ends. The zeros are restored where the portal pads, so both files load the
// same rows; what is truly malformed (13/45/2019, "yes", a beat of "12a",
// February 30) is still refused. Each value is read in whichever form it is in,
// and a file's reader counts the forms it saw, so the summary can name the
// dialect: the portal's, the spreadsheet's, or a mix of the two.
import { toCopyLine } from '../copy-text.js';
import type { CsvFileReader, CsvSource, RowResult } from '../csv-ingest.js';
import {
  FieldError,
  booleanField,
  emptyToNull,
  integerField,
  numberField,
  textField,
  usTimestamp,
  type TimestampForm,
} from '../field-parsers.js';
import { PORTAL_CSV_HEADER } from './crime-table.js';
import { isPortalLine } from './portal-line.js';

/** What one row showed of the spreadsheet dialect. */
interface RowForms {
  timestamps: TimestampForm[];
  upperBooleans: number;
  padded: Padded;
}

interface Padded {
  beat: number;
  district: number;
  iucr: number;
  fbi: number;
}

const zeroPadded = (): Padded => ({ beat: 0, district: 0, iucr: 0, fbi: 0 });

function timestamp(name: string, raw: string | undefined, forms: RowForms, required = false): string | null {
  const s = emptyToNull(raw);
  if (s === null) {
    if (required) throw new FieldError(`${name} is empty`);
    return null;
  }
  const t = usTimestamp(name, s);
  forms.timestamps.push(t.form);
  return t.value;
}

function boolean(name: string, raw: string | undefined, forms: RowForms): boolean | null {
  const b = booleanField(name, raw);
  if (b !== null && raw!.trim() !== String(b)) forms.upperBooleans++;
  return b;
}

/** A whole number the portal writes with `digits` digits (beat 0111, district 011): a spreadsheet drops the zeros, the number is the same. */
function paddedInteger(name: string, raw: string | undefined, digits: number, forms: RowForms, key: 'beat' | 'district'): number | null {
  const n = integerField(name, raw);
  if (n !== null && n >= 0 && raw!.trim().length < digits) forms.padded[key]++;
  return n;
}

/**
 * A code the portal writes as text with leading zeros, which a spreadsheet
 * drops when the code is all digits (and a hand edit may drop otherwise). IUCR
 * codes are 4 characters (`0486`, `041A`): `486` -> `0486`, `41A` -> `041A`.
 * FBI codes are 2 digits and maybe a letter (`06`, `08B`): `6` -> `06`, `8B`
 * -> `08B`. Anything not of that shape is kept as written.
 */
function paddedCode(name: string, raw: string | undefined, forms: RowForms, key: 'iucr' | 'fbi'): string | null {
  const s = textField(name, raw);
  const m = s === null ? null : /^(\d+)([A-Za-z]?)$/.exec(s);
  if (s === null || !m) return s;
  const [, digits, letter] = m;
  const padded = key === 'iucr' ? s.padStart(4, '0') : digits.padStart(2, '0') + letter;
  if (padded !== s) forms.padded[key]++;
  return padded;
}

function parseRow(f: string[], forms: RowForms): RowResult {
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
        timestamp('Date', f[2], forms, true),
        textField('Block', f[3]),
        paddedCode('IUCR', f[4], forms, 'iucr'),
        textField('Primary Type', f[5]),
        textField('Description', f[6]),
        textField('Location Description', f[7]),
        boolean('Arrest', f[8], forms),
        boolean('Domestic', f[9], forms),
        paddedInteger('Beat', f[10], 4, forms, 'beat'),
        paddedInteger('District', f[11], 3, forms, 'district'),
        integerField('Ward', f[12]),
        integerField('Community Area', f[13]),
        paddedCode('FBI Code', f[14], forms, 'fbi'),
        numberField('X Coordinate', f[15]),
        numberField('Y Coordinate', f[16]),
        integerField('Year', f[17]),
        timestamp('Updated On', f[18], forms),
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

const newForms = (): RowForms => ({ timestamps: [], upperBooleans: 0, padded: zeroPadded() });

export function parsePortalRow(f: string[]): RowResult {
  return parseRow(f, newForms());
}

const n = (x: number) => x.toLocaleString('en-US');

/** Counts what the loaded rows of one file were written in, and names it. */
class PortalDialect {
  private portalRows = 0;
  private spreadsheetRows = 0;
  private readonly timestamps = new Map<TimestampForm, number>();
  private upperBooleans = 0;
  private readonly padded = zeroPadded();

  /** A row taken as it is (isPortalLine): all in the portal's format. */
  addPortalRow(): void {
    this.portalRows++;
  }

  add(forms: RowForms): void {
    const p = forms.padded;
    const spreadsheet = forms.upperBooleans > 0 || p.beat + p.district + p.iucr + p.fbi > 0 || forms.timestamps.some((t) => t !== 'portal');
    if (spreadsheet) this.spreadsheetRows++;
    else this.portalRows++;
    for (const t of forms.timestamps) this.timestamps.set(t, (this.timestamps.get(t) ?? 0) + 1);
    this.upperBooleans += forms.upperBooleans;
    for (const k of Object.keys(p) as (keyof Padded)[]) this.padded[k] += p[k];
  }

  /** One line for the summary; undefined when no row was loaded. */
  describe(): string | undefined {
    if (this.spreadsheetRows === 0) return this.portalRows ? "read as the portal's format (MM/DD/YYYY hh:mm:ss AM/PM dates)" : undefined;
    const parts: string[] = [];
    const dates = this.spreadsheetDates();
    if (dates) parts.push(dates);
    if (this.upperBooleans) parts.push('TRUE/FALSE');
    const p = this.padded;
    const padded = [
      [p.beat, 'beat', 'beats'],
      [p.district, 'district', 'districts'],
      [p.iucr, 'IUCR code', 'IUCR codes'],
      [p.fbi, 'FBI code', 'FBI codes'],
    ]
      .filter(([count]) => (count as number) > 0)
      .map(([count, one, many]) => `${n(count as number)} ${count === 1 ? one : many}`);
    if (padded.length) parts.push(`padding restored: ${padded.join(', ')}`);
    const dialect = `the spreadsheet dialect (${parts.join('; ')})`;
    if (this.portalRows === 0) return `read as ${dialect}`;
    return `read as a mix: ${n(this.portalRows)} row${this.portalRows === 1 ? '' : 's'} in the portal's format, ${n(this.spreadsheetRows)} in ${dialect}`;
  }

  private spreadsheetDates(): string | undefined {
    const seen = [...this.timestamps.keys()].filter((t) => t !== 'portal');
    if (!seen.length) return undefined;
    const clocks = ['24-hour', 'AM/PM'].filter((c) => seen.some((t) => t.includes(c)));
    const withSeconds = seen.filter((t) => t.endsWith('with seconds')).length;
    const seconds = withSeconds === 0 ? 'without seconds' : withSeconds === seen.length ? 'with seconds' : 'with and without seconds';
    return `M/D/YYYY ${clocks.join(' and ')} dates ${seconds}`;
  }
}

function fileReader(): CsvFileReader {
  const dialect = new PortalDialect();
  return {
    parseRow(f) {
      const forms = newForms();
      const result = parseRow(f, forms);
      if ('values' in result) dialect.add(forms);
      return result;
    },
    copiesAsIs(line) {
      if (!isPortalLine(line)) return false;
      dialect.addPortalRow();
      return true;
    },
    dialect: () => dialect.describe(),
  };
}

export const portalCsvSource: CsvSource = { header: PORTAL_CSV_HEADER, parseRow: parsePortalRow, forFile: fileReader };
