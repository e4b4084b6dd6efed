// Digest schedules in words or cron: "daily 08:00", "weekly monday 09:00
// America/Chicago", "monthly 1 07:30 Europe/Berlin", "cron 0 9 * * 1-5 UTC",
// then an optional topic. Bad input is an error naming what is wrong.
import { Cron } from 'croner';
import { UserError } from '../core/errors.js';

const DAYS: Record<string, number> = { sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6 };

export interface ParsedSchedule {
  cron: string;
  timezone: string;
  /** what follows the schedule: the digest's topic */
  topic: string;
  /** the schedule in words, for confirmations */
  label: string;
}

function checkTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    throw new UserError(`Unknown time zone "${tz}": use an IANA name such as America/Chicago, Europe/London or UTC.`);
  }
}

function parseTime(t: string | undefined): [number, number] {
  const m = /^(\d{1,2}):(\d{2})$/.exec(t ?? '');
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59)
    throw new UserError(`"${t ?? ''}" is not a time of day: write it as HH:MM, e.g. 09:00.`);
  return [Number(m[1]), Number(m[2])];
}

/** A time zone is the next word when it looks like one (Area/City or UTC); else the default. */
function takeTimezone(words: string[], fallback: string): string {
  if (words[0] && (/^[A-Za-z_]+\/[A-Za-z_/+-]+$/.test(words[0]) || /^(UTC|GMT)$/i.test(words[0]))) return checkTimezone(words.shift()!);
  return fallback;
}

export function parseSchedule(text: string, defaultTimezone: string): ParsedSchedule {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const kind = (words.shift() ?? '').toLowerCase();
  let cron: string;
  let label: string;
  if (kind === 'daily') {
    const [h, m] = parseTime(words.shift());
    cron = `${m} ${h} * * *`;
    label = `daily at ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  } else if (kind === 'weekly') {
    const day = (words.shift() ?? '').toLowerCase();
    if (!(day in DAYS)) throw new UserError(`"${day}" is not a day of the week: weekly needs one, e.g. "weekly monday 09:00".`);
    const [h, m] = parseTime(words.shift());
    cron = `${m} ${h} * * ${DAYS[day]}`;
    label = `every ${day[0].toUpperCase()}${day.slice(1)} at ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  } else if (kind === 'monthly') {
    const day = Number(words.shift());
    if (!Number.isInteger(day) || day < 1 || day > 28)
      throw new UserError('monthly needs a day of the month from 1 to 28 (every month has it), e.g. "monthly 1 09:00".');
    const [h, m] = parseTime(words.shift());
    cron = `${m} ${h} ${day} * *`;
    label = `monthly on day ${day} at ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  } else if (kind === 'cron') {
    const fields = words.splice(0, 5);
    if (fields.length < 5)
      throw new UserError('cron needs five fields: minute hour day-of-month month day-of-week, e.g. "cron 0 9 * * 1-5".');
    cron = fields.join(' ');
    label = `cron "${cron}"`;
  } else {
    throw new UserError(
      `"${kind}" is not a schedule: start with daily, weekly, monthly or cron, e.g. "weekly monday 09:00 America/Chicago".`,
    );
  }
  const timezone = takeTimezone(words, defaultTimezone);
  let job: Cron;
  try {
    job = new Cron(cron, { timezone, paused: true });
  } catch (error) {
    throw new UserError(`"${cron}" is not a valid cron expression: ${(error as Error).message}.`);
  }
  if (!job.nextRun(new Date())) throw new UserError(`"${cron}" never fires: it names a date that does not exist.`);
  return { cron, timezone, topic: words.join(' '), label: `${label} (${timezone})` };
}

/** Fire times of a schedule in (after, upTo], oldest first, at most `limit`. */
export function firesBetween(cron: string, timezone: string, after: Date, upTo: Date, limit = 500): Date[] {
  const job = new Cron(cron, { timezone, paused: true });
  const out: Date[] = [];
  let next = job.nextRun(after);
  while (next && next <= upTo && out.length < limit) {
    out.push(next);
    next = job.nextRun(next);
  }
  return out;
}

/** The fire before `fire`: the start of the period that `fire` ends. */
export function previousFire(cron: string, timezone: string, fire: Date): Date {
  const job = new Cron(cron, { timezone, paused: true });
  return job.previousRuns(1, fire)[0] ?? new Date(fire.getTime() - 7 * 86_400_000);
}
