// Cuts a file's bytes into physical lines (split on LF; a CR before it is left
// for the CSV reader) and decodes them as UTF-8. Damage that belongs to one
// line is found here and reported with that line, so that a reader can reject
// the line alone and go on:
// - invalid UTF-8 (never silently replaced by U+FFFD),
// - a NUL byte (PostgreSQL text cannot hold one: COPY would fail the batch),
// - a line longer than MAX_LINE_BYTES (a file without line breaks must not
//   exhaust memory).
// The common case stays fast: a whole read chunk is checked with one SIMD pass
// (isUtf8) and one memchr (NUL) and decoded at once; only a chunk with damage
// is looked at line by line.
import { isUtf8 } from 'node:buffer';

/** Only bounds memory: no data row of ours comes near it (a crime row is ~250 bytes, a text value at most 500 characters). */
export const MAX_LINE_BYTES = 8 << 20;
/** How much of an over-long line is kept, for the rejects file. */
const OVERLONG_HEAD_BYTES = 1024;

/** Receives each physical line (without its LF), its number (from 1) and what is wrong with it, if anything. */
export type LineSink = (text: string, line: number, damage: string | undefined) => void;

export class LineSplitter {
  private pending: Buffer[] = []; // the start of a line that the next chunk finishes
  private pendingBytes = 0;
  private overlong = false; // the pending line went past MAX_LINE_BYTES: only its head is kept
  private line = 1;
  private started = false;

  constructor(private readonly sink: LineSink) {}

  push(chunk: Buffer): void {
    if (!this.started) {
      this.started = true;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3); // UTF-8 BOM
    }
    const last = chunk.lastIndexOf(10);
    if (last < 0) {
      this.hold(chunk);
      return;
    }
    let start = 0;
    if (this.pendingBytes > 0 || this.overlong) {
      const nl = chunk.indexOf(10);
      this.hold(chunk.subarray(0, nl));
      this.flushPending();
      start = nl + 1;
    }
    if (start <= last) this.lines(chunk.subarray(start, last));
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
  }

  /** The last line, when the file does not end with a line break. */
  end(): void {
    if (this.pendingBytes > 0 || this.overlong) this.flushPending();
  }

  private hold(bytes: Buffer): void {
    if (this.overlong) return;
    if (this.pendingBytes + bytes.length > MAX_LINE_BYTES) {
      const head = Buffer.concat([...this.pending, bytes], OVERLONG_HEAD_BYTES); // truncated to the head
      this.pending = [head];
      this.pendingBytes = head.length;
      this.overlong = true;
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private flushPending(): void {
    const bytes = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    const overlong = this.overlong;
    this.pending = [];
    this.pendingBytes = 0;
    this.overlong = false;
    if (overlong) this.sink(`${bytes.toString('utf8')}…`, this.line++, `line longer than ${MAX_LINE_BYTES >> 20} MiB (not read)`);
    else this.lines(bytes);
  }

  /** One or more whole lines, separated by LF, without a final LF. */
  private lines(bytes: Buffer): void {
    if (isUtf8(bytes)) {
      const text = bytes.toString('utf8');
      const hasNul = bytes.indexOf(0) >= 0;
      let start = 0;
      for (;;) {
        const nl = text.indexOf('\n', start);
        const line = nl < 0 ? text.slice(start) : text.slice(start, nl);
        this.sink(line, this.line++, hasNul ? nulDamage(line) : undefined);
        if (nl < 0) return;
        start = nl + 1;
      }
    }
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(10, start);
      const line = bytes.subarray(start, nl < 0 ? bytes.length : nl);
      const text = line.toString('utf8'); // with U+FFFD, only for the rejects file and for finding quotes
      this.sink(text, this.line++, isUtf8(line) ? nulDamage(text) : invalidUtf8Damage(line));
      if (nl < 0) return;
      start = nl + 1;
    }
  }
}

function nulDamage(text: string): string | undefined {
  const at = text.indexOf('\0');
  return at < 0 ? undefined : `NUL byte at column ${at + 1} (PostgreSQL text cannot hold one)`;
}

function invalidUtf8Damage(bytes: Buffer): string {
  const at = firstInvalidUtf8(bytes);
  return `invalid UTF-8 at byte ${at + 1} of the line (0x${bytes[at].toString(16).padStart(2, '0')})`;
}

/** Where the first byte that does not start a well-formed UTF-8 sequence is (Unicode table 3-7), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) ((need = 2), (lo = 0xa0));
    else if (b === 0xed) ((need = 2), (hi = 0x9f));
    else if (b >= 0xe1 && b <= 0xef) need = 2;
    else if (b === 0xf0) ((need = 3), (lo = 0x90));
    else if (b === 0xf4) ((need = 3), (hi = 0x8f));
    else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < lo || c > hi) return i;
      lo = 0x80;
      hi = 0xbf;
    }
    i += need + 1;
  }
  return -1;
}
