// Rows that could not be loaded, written to a CSV file with where they came
// from and why, so that nothing is dropped silently. The file is created on
// the first reject only.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

export interface Reject {
  /** line number in the source file, or a position such as "page 3 row 17" */
  where: string | number;
  reason: string;
  raw: string;
}

const csvField = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export class RejectFile {
  private stream?: WriteStream;
  count = 0;

  constructor(readonly path: string) {}

  async add(reject: Reject): Promise<void> {
    if (!this.stream) {
      this.stream = createWriteStream(this.path);
      this.stream.write('line,reason,raw\n');
    }
    this.count++;
    // A NUL is shown as U+2400 (␀): a NUL byte would make the rejects file itself unreadable as text.
    const raw = reject.raw.replace(/\r?\n$/, '').replace(/\0/g, '\u2400');
    const ok = this.stream.write(`${csvField(String(reject.where))},${csvField(reject.reason)},${csvField(raw)}\n`);
    if (!ok) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    if (!this.stream) return;
    this.stream.end();
    await once(this.stream, 'finish');
  }
}
