// A streaming RFC 4180 reader: fields split on commas, quoted fields with ""
// escapes and line breaks inside, LF or CRLF line ends, a UTF-8 BOM skipped.
// It reports each record with the line it starts on and its raw text, and a
// damaged record (a stray quote, invalid UTF-8, a NUL byte) as an error record
// instead of stopping the file. We use our own because the general-purpose
// parsers we measured spend 3-4x longer per row, which is minutes on 8.5M rows.
//
// A quoted field may span lines, but not without bound: one stray quote would
// otherwise swallow the rest of the file into one record. When a quoted field
// is still open after MAX_RECORD_LINES lines or MAX_SPILL_CHARS past its first
// line, or at the end of the file, or when closing it gives a record that is
// not valid CSV (a stray quote is usually "closed" by the next line's first
// quote, as in `"(41.8, -87.6)"`), the first line alone is rejected
// ("unterminated quote starting at line L") and reading starts again at line
// L + 1. Each line is then read at most MAX_RECORD_LINES times, so the time
// stays linear in the file's size whatever the damage.
import { createReadStream } from 'node:fs';
import { LineSplitter } from './csv-lines.js';

/** The portal's crime export has no line breaks inside fields; 8 lines leave room for a short multi-line note in other files. */
export const MAX_RECORD_LINES = 8;
/** How far past the end of its first line a quoted field may run. */
export const MAX_SPILL_CHARS = 64 * 1024;

export type CsvRecord =
  { line: number; fields: string[]; raw: string; error?: undefined } | { line: number; fields?: undefined; raw: string; error: string };

interface CsvReadProgress {
  bytesRead: number;
}

export interface CsvReadOptions {
  /** updated with the bytes read so far */
  progress?: CsvReadProgress;
  /**
   * Offered each undamaged line that starts a record (without its CR); a line it takes (returns
   * true for) is not read as a record. A line with a quote left open is offered too: the taker
   * must take only a whole record.
   */
  take?: (text: string, line: number) => boolean;
}

/** Splits one complete record's text (no trailing line end) into fields; null when a quoted field is not closed. */
export function splitRecord(text: string): string[] | string | null {
  const fields: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    if (text.charCodeAt(i) === 34 /* " */) {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return null;
        value += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 34) {
          value += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(value);
      if (i === n) return fields;
      if (text.charCodeAt(i) !== 44 /* , */) return `unexpected text after a closing quote at column ${i + 1}`;
      i++;
    } else {
      const comma = text.indexOf(',', i);
      const end = comma < 0 ? n : comma;
      const value = text.slice(i, end);
      if (value.includes('"')) return `a quote inside an unquoted field at column ${i + 1}`;
      fields.push(value);
      if (comma < 0) return fields;
      i = comma + 1;
    }
  }
}

/**
 * Where a multi-line record's scan stands: inside a quoted field or not, and
 * whether the next character starts a field. Only a quote that starts a field
 * opens one.
 */
interface ScanState {
  inQuoted: boolean;
  atFieldStart: boolean;
  /** index in the line of the quote that opened the current quoted field */
  openedAt: number;
}

function scan(text: string, state: ScanState): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (state.inQuoted) {
      if (c === 34) {
        if (text.charCodeAt(i + 1) === 34) i++;
        else state.inQuoted = false;
      }
    } else if (c === 44) state.atFieldStart = true;
    else {
      if (c === 34 && state.atFieldStart) ((state.inQuoted = true), (state.openedAt = i));
      state.atFieldStart = false;
    }
  }
}

const stripCr = (text: string) => (text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text);

interface Part {
  text: string;
  line: number;
  damage: string | undefined;
}

/** Turns physical lines into records. */
class RecordAssembler {
  constructor(private readonly taker?: (text: string, line: number) => boolean) {}

  private out: CsvRecord[] = [];
  private open: Part[] = []; // the lines of a record whose quoted field is not closed yet
  private openColumn = 0;
  private spill = 0;
  private readonly state: ScanState = { inQuoted: false, atFieldStart: true, openedAt: 0 };

  take(): CsvRecord[] {
    const records = this.out;
    this.out = [];
    return records;
  }

  line(text: string, line: number, damage: string | undefined): void {
    if (this.open.length === 0) {
      this.first(text, line, damage);
      return;
    }
    this.open.push({ text, line, damage });
    this.spill += text.length + 1;
    scan(text, this.state);
    if (!this.state.inQuoted) this.close();
    else if (this.open.length >= MAX_RECORD_LINES) this.resync(`no closing quote within ${MAX_RECORD_LINES} lines`);
    else if (this.spill > MAX_SPILL_CHARS) this.resync(`no closing quote within ${MAX_SPILL_CHARS / 1024} KiB`);
  }

  end(): void {
    while (this.open.length) this.resync('no closing quote before the end of the file');
  }

  /** A line that starts a record: most records are one line and are done here. */
  private first(text: string, line: number, damage: string | undefined): void {
    const raw = stripCr(text);
    if (raw === '') return; // blank line
    if (damage === undefined && this.taker?.(raw, line)) return;
    const fields = splitRecord(raw);
    if (fields === null) {
      this.open = [{ text, line, damage }];
      this.spill = 0;
      this.state.inQuoted = false;
      this.state.atFieldStart = true;
      scan(text, this.state);
      this.openColumn = this.state.openedAt + 1;
    } else if (damage !== undefined) this.out.push({ line, raw, error: damage });
    else if (typeof fields === 'string') this.out.push({ line, raw, error: `malformed CSV: ${fields}` });
    else this.out.push({ line, raw, fields });
  }

  private close(): void {
    const parts = this.open;
    const lastLine = parts[parts.length - 1].line;
    const raw = stripCr(parts.map((p) => p.text).join('\n'));
    const fields = splitRecord(raw);
    if (fields === null || typeof fields === 'string') {
      this.resync(`closing it on line ${lastLine} does not give a valid record`);
    } else {
      this.open = [];
      const damaged = parts.find((p) => p.damage !== undefined);
      const line = parts[0].line;
      if (!damaged) this.out.push({ line, raw, fields });
      else this.out.push({ line, raw, error: damaged.line === line ? damaged.damage! : `line ${damaged.line}: ${damaged.damage}` });
    }
  }

  /** Rejects the line that opened the quote and reads the lines after it again. */
  private resync(why: string): void {
    const [head, ...rest] = this.open;
    this.open = [];
    this.out.push({
      line: head.line,
      raw: stripCr(head.text),
      error: `malformed CSV: unterminated quote starting at line ${head.line}, column ${this.openColumn} (${why})`,
    });
    for (const p of rest) this.line(p.text, p.line, p.damage);
  }
}

/** The records of each read chunk of the file (about 1 MiB), maybe none: a reader can act between chunks even when `take` took every line. */
export async function* readCsvChunks(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvRecord[]> {
  const records = new RecordAssembler(options.take);
  const lines = new LineSplitter((text, line, damage) => records.line(text, line, damage));
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (options.progress) options.progress.bytesRead = stream.bytesRead;
    lines.push(chunk);
    yield records.take();
  }
  lines.end();
  records.end();
  yield records.take();
}

export async function* readCsvRecords(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvRecord> {
  for await (const records of readCsvChunks(file, options)) yield* records;
}
