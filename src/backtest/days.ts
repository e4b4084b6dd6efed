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
