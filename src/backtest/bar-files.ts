// Bars and signals from CSV files for `datadesk backtest simulate|factor`:
// bars `date,open,high,low,close,volume[,amount]`, signals `date,buy,sell`
// (0/1 or true/false, meaning "act on this day"). Errors name file and line.
import { readCsvRecords } from '../ingest/csv-records.js';
import { UserError } from '../core/errors.js';
import type { Bars } from './expr/compile.js';

export interface BarFile {
  dates: string[];
  bars: Bars;
}

async function readTable(
  file: string,
  required: string[],
  optional: string[] = [],
): Promise<{ line: number; get: (c: string) => string | undefined }[]> {
  const rows: { line: number; get: (c: string) => string | undefined }[] = [];
  let header: string[] | undefined;
  try {
    for await (const r of readCsvRecords(file)) {
      if (r.error !== undefined) throw new UserError(`${file} line ${r.line}: ${r.error}`);
      if (!header) {
        header = r.fields.map((h) => h.trim().toLowerCase());
        const missing = required.filter((c) => !header!.includes(c));
        if (missing.length)
          throw new UserError(
            `${file}: the header lacks ${missing.join(', ')} (expected ${[...required, ...optional.map((o) => `[${o}]`)].join(',')})`,
          );
        continue;
      }
      const fields = r.fields;
      const h = header;
      rows.push({ line: r.line, get: (c) => fields[h.indexOf(c)] });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UserError(`Cannot read ${file}: no such file`);
    throw error;
  }
  if (!header) throw new UserError(`${file} is empty`);
  return rows;
}

function checkDates(file: string, dates: { line: number; date: string }[]): void {
  for (let i = 0; i < dates.length; i++) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(dates[i].date))
      throw new UserError(`${file} line ${dates[i].line}: "${dates[i].date}" is not a date YYYY-MM-DD`);
    if (i > 0 && dates[i].date <= dates[i - 1].date) {
      throw new UserError(
        `${file} line ${dates[i].line}: ${dates[i].date} does not come after ${dates[i - 1].date}; bars must be strictly ordered by date`,
      );
    }
  }
}

export async function readBarFile(file: string): Promise<BarFile> {
  const rows = await readTable(file, ['date', 'open', 'high', 'low', 'close', 'volume'], ['amount']);
  if (!rows.length) throw new UserError(`${file} has no bars`);
  checkDates(
    file,
    rows.map((r) => ({ line: r.line, date: (r.get('date') ?? '').trim() })),
  );
  const n = rows.length;
  const col = (name: string, required: boolean) => {
    const out = new Float64Array(n);
    rows.forEach((r, i) => {
      const raw = r.get(name)?.trim();
      if (!raw) {
        if (required) throw new UserError(`${file} line ${r.line}: ${name} is empty`);
        out[i] = NaN;
        return;
      }
      const v = Number(raw);
      if (!Number.isFinite(v)) throw new UserError(`${file} line ${r.line}: ${name} "${raw}" is not a number`);
      out[i] = v;
    });
    return out;
  };
  const close = col('close', true);
  const pct = new Float64Array(n).fill(NaN);
  for (let i = 1; i < n; i++) pct[i] = (close[i] / close[i - 1] - 1) * 100;
  return {
    dates: rows.map((r) => r.get('date')!.trim()),
    bars: {
      OPEN: col('open', true),
      HIGH: col('high', true),
      LOW: col('low', true),
      CLOSE: close,
      VOLUME: col('volume', true),
      AMOUNT: col('amount', false),
      PERCENTAGE_CHANGE: pct,
    },
  };
}

const BOOL: Record<string, boolean> = { '1': true, '0': false, true: true, false: false };

export async function readSignalFile(file: string, dates: string[]): Promise<{ buy: boolean[]; sell: boolean[] }> {
  const rows = await readTable(file, ['date', 'buy', 'sell']);
  const parse = (r: (typeof rows)[number], c: string) => {
    const raw = (r.get(c) ?? '').trim().toLowerCase();
    if (!(raw in BOOL)) throw new UserError(`${file} line ${r.line}: ${c} "${raw}" is not 0/1 or true/false`);
    return BOOL[raw];
  };
  if (rows.length !== dates.length)
    throw new UserError(`${file} has ${rows.length} days but the bars file has ${dates.length}; give one signal row per bar`);
  rows.forEach((r, i) => {
    const d = (r.get('date') ?? '').trim();
    if (d !== dates[i]) throw new UserError(`${file} line ${r.line}: date ${d} does not match the bars' day ${i + 1} (${dates[i]})`);
  });
  return { buy: rows.map((r) => parse(r, 'buy')), sell: rows.map((r) => parse(r, 'sell')) };
}
