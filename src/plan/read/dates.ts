// Calendar arithmetic on YYYY-MM-DD strings (UTC, no time of day).
const pad = (n: number) => String(n).padStart(2, '0');

const isoDate = (y: number, m: number, d: number): string => `${y}-${pad(m)}-${pad(d)}`;

const parts = (s: string): [number, number, number] => {
  const [y, m, d] = s.split('-').map(Number);
  return [y, m, d];
};

export function isValidDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

export function addDays(s: string, n: number): string {
  const [y, m, d] = parts(s);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** The same day n months later, clamped to the month's last day. */
export function addMonths(s: string, n: number): string {
  const [y, m, d] = parts(s);
  const first = new Date(Date.UTC(y, m - 1 + n, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return isoDate(first.getUTCFullYear(), first.getUTCMonth() + 1, Math.min(d, last));
}

export const yearOf = (s: string): number => parts(s)[0];
export const monthOf = (s: string): number => parts(s)[1];
export const monthStart = (s: string): string => s.slice(0, 8) + '01';

/** ISO weekday, 1 = Monday. */
export function isoWeekday(s: string): number {
  const [y, m, d] = parts(s);
  return ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7) + 1;
}

export const yearRange = (y: number) => ({ from: isoDate(y, 1, 1), to: isoDate(y + 1, 1, 1) });
export const monthRange = (y: number, m: number) => ({ from: isoDate(y, m, 1), to: addMonths(isoDate(y, m, 1), 1) });
export const dayRange = (y: number, m: number, d: number) => ({ from: isoDate(y, m, d), to: addDays(isoDate(y, m, d), 1) });
