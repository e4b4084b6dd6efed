// Buffered CSV output with backpressure: lines are joined into large writes.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';

export const csvField = (value: string): string => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export class CsvWriter {
  private readonly stream: WriteStream;
  private buffer: string[] = [];
  rows = 0;

  constructor(file: string, header: readonly string[]) {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.stream = createWriteStream(file, { highWaterMark: 1 << 22 });
    this.buffer.push(header.map(csvField).join(','));
  }

  /** Adds one line (already CSV-encoded, without the newline). */
  async line(text: string): Promise<void> {
    this.buffer.push(text);
    this.rows++;
    if (this.buffer.length >= 8192) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.buffer.length) return;
    const ok = this.stream.write(this.buffer.join('\n') + '\n');
    this.buffer = [];
    if (!ok) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await once(this.stream, 'finish');
  }
}
