// Option parsers for commander that fail with a sentence, not a NaN.
import { InvalidArgumentError } from 'commander';

export function positiveInt(value: string): number {
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a whole number of 1 or more, got "${value}"`);
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number of 0 or more, got "${value}"`);
  return n;
}

export function isoDate(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m || Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
    throw new InvalidArgumentError(`expected a date YYYY-MM-DD, got "${value}"`);
  }
  return value;
}

export function year(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 2001 || n > 2100) throw new InvalidArgumentError(`expected a year from 2001, got "${value}"`);
  return n;
}
