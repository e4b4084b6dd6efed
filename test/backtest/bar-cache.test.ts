// The cache's own parsing of PostgreSQL's COPY text: every number exactly as
// Number() reads it (bit for bit, the engine's results depend on it), and dates
// as day numbers and back.
import { describe, expect, it } from 'vitest';
import { parseNumber } from '../../src/backtest/bar-cache.js';
import { dayOfDigits, dayText, daysFromCivil, isoDay } from '../../src/backtest/days.js';

const parse = (text: string) => parseNumber(Buffer.from(`\t${text}\t`, 'latin1'), 1, 1 + text.length);

describe('parseNumber', () => {
  it('reads what float8 and numeric columns print, exactly as Number does', () => {
    for (const text of [
      '0',
      '-0',
      '12',
      '1234.56',
      '0.1',
      '0.3',
      '-12.345',
      '9.99',
      '100.10',
      '0.000123',
      '123456789012345',
      '1234567890123456',
      '12345678901234567',
      '0.1234567890123456789',
      '1e-05',
      '-2.5e+20',
      '1.7976931348623157e+308',
      'NaN',
      'Infinity',
      '-Infinity',
      '5e-324',
    ]) {
      expect(Object.is(parse(text), Number(text)), text).toBe(true);
    }
    expect(parse('\\N')).toBeNaN();
  });

  it('agrees with Number on a million random prices, volumes and changes', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 1_000_000; i++) {
      const digits = 1 + Math.floor(random() * 17);
      const scale = Math.floor(random() * Math.min(digits + 3, 20));
      let text = String(Math.floor(random() * 10 ** Math.min(digits, 15)));
      if (scale) text = text.length <= scale ? '0.' + text.padStart(scale, '0') : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
      if (random() < 0.3) text = `-${text}`;
      if (!Object.is(parse(text), Number(text))) throw new Error(`${text}: ${parse(text)} != ${Number(text)}`);
      // and as PostgreSQL prints a double: the shortest text that reads back the same
      const x = (random() - 0.2) * 10 ** Math.floor(random() * 12 - 4);
      const shortest = String(x);
      if (!Object.is(parse(shortest), x)) throw new Error(`${shortest}: ${parse(shortest)} != ${x}`);
    }
  });
});

describe('trade dates as day numbers', () => {
  it('round-trips every day of 1990-2040', () => {
    for (let day = daysFromCivil(1990, 1, 1); day <= daysFromCivil(2040, 12, 31); day++) {
      const text = isoDay(day);
      expect(daysFromCivil(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)))).toBe(day);
    }
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(dayText(daysFromCivil(2024, 2, 29))).toBe('2024-02-29');
  });
});

describe("a COPY row's trade date as a day number", () => {
  const read = (text: string) => dayOfDigits(Buffer.from(`600519\t${text}\t1.5`, 'latin1'), 7);

  it('reads every day of 1890-2310 as the calendar does, first readings and repeats alike (kept per date)', () => {
    for (let pass = 0; pass < 2; pass++)
      for (let day = daysFromCivil(1890, 1, 1); day <= daysFromCivil(2310, 12, 31); day += pass ? 1 : 7) {
        expect(read(isoDay(day))).toBe(day);
      }
    expect(read('1970-01-01')).toBe(0);
    expect(read('2024-02-29')).toBe(daysFromCivil(2024, 2, 29));
  });

  it('refuses what is not YYYY-MM-DD with digits', () => {
    expect(() => read('2024/02/29')).toThrow(/not YYYY-MM-DD/);
    expect(() => read('2024-0a-29')).toThrow(/not a date/);
    expect(() => read('2024-02-2 ')).toThrow(/not a date/);
    expect(() => read('/024-02-29')).toThrow(/not a date/);
  });
});
