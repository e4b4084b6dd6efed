// Whether a line of the portal's CSV export is in the portal's own form, which
// PostgreSQL reads as CSV (COPY ... (FORMAT csv), month-first dates) into the
// crimes columns to exactly the values portal-csv.ts's parseRow gives: then the
// line is staged as it is and its 22 fields are never split into strings here.
// Only what needs no change qualifies: text already trimmed, codes already
// zero-padded, lowercase true/false, MM/DD/YYYY hh:mm:ss AM/PM dates, plain
// decimals in range. Anything else (the spreadsheet dialect, a value to refuse,
// a quoted empty field, a rare form) goes through parseRow, which gives the same
// values or the reason for refusing the row. No allocation per field.
import { MAX_TEXT_CHARS } from '../field-parsers.js';

type Kind =
  | 'id'
  | 'text'
  | 'timestamp'
  | 'required timestamp'
  | 'iucr'
  | 'fbi'
  | 'boolean'
  | 'beat'
  | 'district'
  | 'integer'
  | 'number'
  | 'latitude'
  | 'longitude';

/** The export's 22 columns (PORTAL_CSV_HEADER), by what each holds. */
const KINDS: readonly Kind[] = [
  'id', // ID
  'text', // Case Number
  'required timestamp', // Date
  'text', // Block
  'iucr', // IUCR
  'text', // Primary Type
  'text', // Description
  'text', // Location Description
  'boolean', // Arrest
  'boolean', // Domestic
  'beat', // Beat
  'district', // District
  'integer', // Ward
  'integer', // Community Area
  'fbi', // FBI Code
  'number', // X Coordinate
  'number', // Y Coordinate
  'integer', // Year
  'timestamp', // Updated On
  'latitude', // Latitude
  'longitude', // Longitude
  'text', // Location
];

const QUOTE = 34;
const COMMA = 44;
const isDigit = (c: number) => c >= 48 && c <= 57;

function digitsOnly(line: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isDigit(line.charCodeAt(i))) return false;
  return true;
}

/** Two digits at `at`, as a number (NaN when not digits). */
function twoDigits(line: string, at: number): number {
  const a = line.charCodeAt(at) - 48;
  const b = line.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** `MM/DD/YYYY hh:mm:ss AM` (or PM), a real date, year 1000 or later (PostgreSQL reads fewer digits as another year). */
function portalTimestamp(line: string, s: number, e: number): boolean {
  if (e - s !== 22) return false;
  const month = twoDigits(line, s);
  const day = twoDigits(line, s + 3);
  const century = twoDigits(line, s + 6);
  const year = century * 100 + twoDigits(line, s + 8);
  const hour = twoDigits(line, s + 11);
  const minute = twoDigits(line, s + 14);
  const second = twoDigits(line, s + 17);
  const meridiem = line.charCodeAt(s + 20);
  return (
    line.charCodeAt(s + 2) === 47 && // /
    line.charCodeAt(s + 5) === 47 &&
    line.charCodeAt(s + 10) === 32 &&
    line.charCodeAt(s + 13) === 58 && // :
    line.charCodeAt(s + 16) === 58 &&
    line.charCodeAt(s + 19) === 32 &&
    (meridiem === 65 || meridiem === 80) && // A, P
    line.charCodeAt(s + 21) === 77 && // M
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]) &&
    century >= 10 &&
    hour >= 1 &&
    hour <= 12 &&
    minute <= 59 &&
    second <= 59
  );
}

/** Text parseRow keeps as it is: no space to trim at either end, no control character, not too long, no stray quote. */
function plainText(line: string, s: number, e: number, quoted: boolean, escapes: number): boolean {
  if (e - s - escapes > MAX_TEXT_CHARS) return false;
  const first = line.charCodeAt(s);
  const last = line.charCodeAt(e - 1);
  if (first <= 32 || first >= 127 || last <= 32 || last >= 127) return false;
  for (let i = s; i < e; i++) {
    const c = line.charCodeAt(i);
    if (c < 32 || (c === QUOTE && !quoted)) return false;
  }
  return true;
}

/** A decimal both readers turn into the same double: `-?digits(.digits)?`, at most `intDigits` before the point, below `below` in size, not a negative zero. */
function plainDecimal(line: string, s: number, e: number, intDigits: number, below: number): boolean {
  let i = s;
  const negative = line.charCodeAt(i) === 45; // -
  if (negative) i++;
  let whole = 0;
  const wholeStart = i;
  while (i < e && isDigit(line.charCodeAt(i))) whole = whole * 10 + (line.charCodeAt(i++) - 48);
  const wholeDigits = i - wholeStart;
  if (wholeDigits === 0 || wholeDigits > intDigits || whole >= below) return false;
  let nonZero = whole > 0;
  if (i < e) {
    if (line.charCodeAt(i++) !== 46 || i === e || e - i > 20) return false; // .
    for (; i < e; i++) {
      const c = line.charCodeAt(i);
      if (!isDigit(c)) return false;
      if (c !== 48) nonZero = true;
    }
  }
  return nonZero || !negative;
}

function fieldAsIs(kind: Kind, line: string, s: number, e: number, quoted: boolean, escapes: number): boolean {
  if (s === e) return !quoted && kind !== 'id' && kind !== 'required timestamp'; // empty: NULL (a quoted "" is '' to PostgreSQL)
  if (escapes > 0 && kind !== 'text' && kind !== 'iucr' && kind !== 'fbi') return false;
  switch (kind) {
    case 'id': // unquoted, as the loader's duplicate check reads it
      return !quoted && e - s <= 9 && line.charCodeAt(s) !== 48 && digitsOnly(line, s, e); // 1 .. 999,999,999
    case 'text':
      return plainText(line, s, e, quoted, escapes);
    case 'timestamp':
    case 'required timestamp':
      return portalTimestamp(line, s, e);
    case 'iucr': // 4 characters or more: parseRow pads none
      return e - s >= 4 && plainText(line, s, e, quoted, escapes);
    case 'fbi': {
      // parseRow pads a single leading digit (6 -> 06, 8B -> 08B)
      let digits = 0;
      while (s + digits < e && isDigit(line.charCodeAt(s + digits))) digits++;
      return digits !== 1 && plainText(line, s, e, quoted, escapes);
    }
    case 'boolean':
      return e - s === 4 ? line.startsWith('true', s) : e - s === 5 && line.startsWith('false', s);
    case 'beat':
      return e - s === 4 && digitsOnly(line, s, e);
    case 'district':
      return e - s === 3 && digitsOnly(line, s, e);
    case 'integer':
      return e - s <= 9 && digitsOnly(line, s, e);
    case 'number':
      return plainDecimal(line, s, e, 15, Infinity);
    case 'latitude':
      return plainDecimal(line, s, e, 2, 90);
    case 'longitude':
      return plainDecimal(line, s, e, 3, 180);
  }
}

/** Whether `line` (one whole record, without its line end) is a portal row PostgreSQL can read as it is. */
export function isPortalLine(line: string): boolean {
  const n = line.length;
  let i = 0;
  for (let f = 0; f < KINDS.length; f++) {
    let start: number;
    let end: number;
    let escapes = 0;
    const quoted = line.charCodeAt(i) === QUOTE;
    if (quoted) {
      start = i + 1;
      let j = start;
      for (;;) {
        const q = line.indexOf('"', j);
        if (q < 0) return false; // not closed on this line
        if (line.charCodeAt(q + 1) === QUOTE) {
          escapes++;
          j = q + 2;
          continue;
        }
        end = q;
        i = q + 1;
        break;
      }
    } else {
      start = i;
      const comma = line.indexOf(',', i);
      end = comma < 0 ? n : comma;
      i = end;
    }
    if (f < KINDS.length - 1) {
      if (line.charCodeAt(i) !== COMMA) return false;
      i++;
    } else if (i !== n) return false;
    if (!fieldAsIs(KINDS[f], line, start, end, quoted, escapes)) return false;
  }
  return true;
}
