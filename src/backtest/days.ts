// Trade dates as day numbers (days since 1970-01-01, UTC) and back, for the
// columnar bar cache and the worker threads that read it.

export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

// day numbers of the dates 1900-01-01..2299-12-31 once computed, by (year, month, day): a whole market's
// rows repeat a few thousand dates millions of times
const FIRST_CACHED_YEAR = 1900;
const CACHED_YEARS = 400;
const UNSET = -0x80000000;
const dayCache = new Int32Array(CACHED_YEARS * 12 * 31).fill(UNSET);

/** Days since 1970-01-01 of the YYYY-MM-DD written at `at` of a buffer (a COPY row's trade_date). */
export function dayOfDigits(buf: Uint8Array, at: number): number {
  if (buf[at + 4] !== 45 || buf[at + 7] !== 45) throw new Error('trade_date is not YYYY-MM-DD (DateStyle ISO)');
  // a byte below '0' wraps around to a large number under >>> 0, so one comparison checks each digit
  const y0 = buf[at] - 48,
    y1 = buf[at + 1] - 48,
    y2 = buf[at + 2] - 48,
    y3 = buf[at + 3] - 48;
  const m0 = buf[at + 5] - 48,
    m1 = buf[at + 6] - 48,
    d0 = buf[at + 8] - 48,
    d1 = buf[at + 9] - 48;
  if (y0 >>> 0 > 9 || y1 >>> 0 > 9 || y2 >>> 0 > 9 || y3 >>> 0 > 9 || m0 >>> 0 > 9 || m1 >>> 0 > 9 || d0 >>> 0 > 9 || d1 >>> 0 > 9)
    throw new Error(`not a date at byte ${at}`);
  const y = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const m = m0 * 10 + m1;
  const d = d0 * 10 + d1;
  const year = y - FIRST_CACHED_YEAR;
  if (year < 0 || year >= CACHED_YEARS || m < 1 || m > 12 || d < 1 || d > 31) return daysFromCivil(y, m, d);
  const key = (year * 12 + m - 1) * 31 + d - 1;
  let day = dayCache[key];
  if (day === UNSET) dayCache[key] = day = daysFromCivil(y, m, d);
  return day;
}

/** The day number of an ISO date (YYYY-MM-DD). */
export function dayOfIso(iso: string): number {
  return daysFromCivil(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)), Number(iso.slice(8, 10)));
}

export function isoDay(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

const dayTexts = new Map<number, string>();
/** The ISO text of a day number, one string per day however many tickers share it. */
export function dayText(day: number): string {
  let s = dayTexts.get(day);
  if (s === undefined) {
    s = isoDay(day);
    dayTexts.set(day, s);
  }
  return s;
}
