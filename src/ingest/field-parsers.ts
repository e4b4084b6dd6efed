// Field converters shared by the ingesters. Each returns the value for COPY, or
// throws FieldError with a sentence naming the field and what was expected.
export class FieldError extends Error {}

export const emptyToNull = (s: string | undefined): string | null => {
  if (s === undefined) return null;
  const t = s.trim();
  return t === '' ? null : t;
};

/**
 * The longest text value we store, in UTF-16 units. Real values are far
 * shorter: the portal's longest (a description or location description) is
 * under 70 characters and a listed company's name under 100. 500 units are at
 * most 1,500 bytes of UTF-8, well under the ~2,700 bytes PostgreSQL allows in a
 * B-tree entry: a longer value in an indexed column (primary_type, a stock's
 * name) would fail its whole batch instead of being one rejected row.
 */
export const MAX_TEXT_CHARS = 500;

/** Text as stored: trimmed, empty as NULL, at most MAX_TEXT_CHARS, no NUL (PostgreSQL text cannot hold one). */
export function textField(name: string, raw: string | undefined): string | null {
  const s = emptyToNull(raw);
  if (s === null) return null;
  if (s.length > MAX_TEXT_CHARS) {
    throw new FieldError(`${name}: ${s.length.toLocaleString('en-US')} characters, more than the ${MAX_TEXT_CHARS} a value may have`);
  }
  if (s.includes('\0')) throw new FieldError(`${name} contains a NUL byte, which PostgreSQL text cannot hold`);
  return s;
}

export function integerField(name: string, raw: string | undefined, required = false): number | null {
  const s = emptyToNull(raw);
  if (s === null) {
    if (required) throw new FieldError(`${name} is empty`);
    return null;
  }
  if (!/^[+-]?\d+$/.test(s)) throw new FieldError(`${name}: "${s}" is not a whole number`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2_147_483_647) throw new FieldError(`${name}: ${s} is out of range`);
  return n;
}

export function numberField(name: string, raw: string | undefined, min = -Infinity, max = Infinity): number | null {
  const s = emptyToNull(raw);
  if (s === null) return null;
  const n = Number(s);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) || !Number.isFinite(n)) {
    throw new FieldError(`${name}: "${s}" is not a number`);
  }
  if (n < min || n > max) throw new FieldError(`${name}: ${s} is outside ${min}..${max}`);
  return n;
}

export function booleanField(name: string, raw: string | boolean | undefined): boolean | null {
  if (typeof raw === 'boolean') return raw;
  const s = emptyToNull(raw);
  if (s === null) return null;
  const lower = s.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new FieldError(`${name}: "${s}" is not true or false`);
}

function validDate(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false; // PostgreSQL has no year 0
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

const PORTAL_TIMESTAMP = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2}) ([AP]M)$/;
/** What a spreadsheet writes back after reading the portal's timestamps: `1/1/2001 11:00`, `1/1/2001 11:00:05 PM`. */
const SPREADSHEET_TIMESTAMP = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2})(?::(\d{2}))? ?([AaPp][Mm])?$/;

/**
 * How a timestamp was written: the portal's own `MM/DD/YYYY hh:mm:ss AM/PM`, or
 * the spreadsheet dialect (a file re-saved by Excel, LibreOffice or Sheets:
 * M/D/YYYY, a 24-hour or AM/PM time, seconds often dropped).
 */
export type TimestampForm =
  'portal' | 'spreadsheet 24-hour' | 'spreadsheet 24-hour with seconds' | 'spreadsheet AM/PM' | 'spreadsheet AM/PM with seconds';

/**
 * A US month-first timestamp, as the portal writes it or as a spreadsheet saves
 * it again, -> `YYYY-MM-DD HH:MM:SS` and the form it was in. Day-first dates
 * (13/45/2019) and impossible ones (February 30) are refused.
 */
export function usTimestamp(name: string, s: string): { value: string; form: TimestampForm } {
  const m = SPREADSHEET_TIMESTAMP.exec(s);
  if (!m) throw new FieldError(`${name}: "${s}" is not MM/DD/YYYY hh:mm:ss AM/PM (or M/D/YYYY H:MM as a spreadsheet saves it)`);
  const [, mo, d, y, hh, mi, ss, ampm] = m;
  const hour = Number(hh);
  const twelve = ampm !== undefined;
  const hourOk = twelve ? hour >= 1 && hour <= 12 : hour <= 23;
  if (!hourOk || Number(mi) > 59 || Number(ss ?? 0) > 59 || !validDate(Number(y), Number(mo), Number(d))) {
    throw new FieldError(`${name}: "${s}" is not a real date and time`);
  }
  const hour24 = twelve ? (hour % 12) + (ampm.toUpperCase() === 'PM' ? 12 : 0) : hour;
  const value = `${y}-${pad2(Number(mo))}-${pad2(Number(d))} ${pad2(hour24)}:${mi}:${ss ?? '00'}`;
  const form: TimestampForm = PORTAL_TIMESTAMP.test(s)
    ? 'portal'
    : `spreadsheet ${twelve ? 'AM/PM' : '24-hour'}${ss === undefined ? '' : ' with seconds'}`;
  return { value, form };
}

const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?$/;

/** SODA's floating timestamp `2014-11-02T05:57:00.000` -> `2014-11-02 05:57:00`. */
export function isoTimestampField(name: string, raw: unknown, required = false): string | null {
  const s = typeof raw === 'string' ? emptyToNull(raw) : null;
  if (s === null) {
    if (required) throw new FieldError(`${name} is empty`);
    return null;
  }
  const m = ISO_TIMESTAMP.exec(s);
  if (!m || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59 || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw new FieldError(`${name}: "${s}" is not an ISO 8601 timestamp`);
  }
  return `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}`;
}

/** `YYYY-MM-DD`, a real calendar date. */
export function isoDateField(name: string, raw: string | undefined): string {
  const s = emptyToNull(raw);
  if (s === null) throw new FieldError(`${name} is empty`);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) throw new FieldError(`${name}: "${s}" is not a date YYYY-MM-DD`);
  return s;
}
