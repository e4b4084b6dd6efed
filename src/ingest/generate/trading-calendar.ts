// The A-share trading calendar: weekdays without the exchanges' holiday
// closures (fixtures/data/ashare/holidays.json).
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../core/paths.js';

let closed: Set<string> | undefined;

function closedWeekdays(): Set<string> {
  if (!closed) {
    const data = JSON.parse(readFileSync(fixturePath('data', 'ashare', 'holidays.json'), 'utf8')) as {
      closedWeekdays: Record<string, string[]>;
    };
    closed = new Set(Object.values(data.closedWeekdays).flat());
  }
  return closed;
}

/** Trading days from `from` to `to` inclusive, as YYYY-MM-DD. */
export function tradingDays(from: string, to: string): string[] {
  const holidays = closedWeekdays();
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end; t += 86_400_000) {
    const date = new Date(t);
    const weekday = date.getUTCDay();
    const iso = date.toISOString().slice(0, 10);
    if (weekday !== 0 && weekday !== 6 && !holidays.has(iso)) days.push(iso);
  }
  return days;
}
