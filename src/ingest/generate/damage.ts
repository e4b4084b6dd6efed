// A damaged copy of a portal CSV, for the damaged-ingest benchmark and tests:
// every `every`-th data line gets one kind of damage, the kinds in turn, and
// the list of damaged lines is returned so that the rejects can be checked
// against it exactly. The input must be single-line records (as the generator
// writes them).
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { splitRecord } from '../csv-records.js';
import { csvField } from './csv-writer.js';

export const DAMAGE_KINDS = ['stray quote', 'NUL byte', 'invalid UTF-8', 'oversized value', 'wrong column count'] as const;
export type DamageKind = (typeof DAMAGE_KINDS)[number];

const join = (fields: string[]) => fields.map(csvField).join(',');

/** One portal row (22 fields) with the damage applied, as bytes. */
function damageRow(fields: string[], kind: DamageKind): Buffer {
  switch (kind) {
    case 'stray quote': // the last field opens a quote that never closes
      return Buffer.from(`${join(fields.slice(0, -1))},"${fields[fields.length - 1]}`);
    case 'NUL byte':
      return Buffer.from(join(fields.map((f, i) => (i === 6 ? `${f.slice(0, 3)}\0${f.slice(3)}` : f))));
    case 'invalid UTF-8': {
      // 0xC3 starts a two-byte sequence; "(" cannot continue it
      const [before, after] = join(fields.map((f, i) => (i === 3 ? `${f.slice(0, 4)}\u0001${f.slice(4)}` : f))).split('\u0001');
      return Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from(after)]);
    }
    case 'oversized value': // in primary_type, which an index covers
      return Buffer.from(join(fields.map((f, i) => (i === 5 ? 'X'.repeat(3000) : f))));
    case 'wrong column count':
      return Buffer.from(join(fields.slice(0, 11)));
  }
}

export interface DamagedLine {
  line: number;
  kind: DamageKind;
}

export async function damageCsv(options: { input: string; output: string; every: number }): Promise<DamagedLine[]> {
  const lines = createInterface({ input: createReadStream(options.input), crlfDelay: Infinity });
  const out = createWriteStream(options.output, { highWaterMark: 1 << 22 });
  const damaged: DamagedLine[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  const nl = Buffer.from('\n');
  for await (const text of lines) {
    line++;
    const dataIndex = line - 1; // line 1 is the header
    let bytes: Buffer;
    if (dataIndex > 0 && dataIndex % options.every === options.every >> 1) {
      const fields = splitRecord(text);
      if (!Array.isArray(fields)) throw new Error(`line ${line} is not a single-line CSV record`);
      const kind = DAMAGE_KINDS[damaged.length % DAMAGE_KINDS.length];
      bytes = damageRow(fields, kind);
      damaged.push({ line, kind });
    } else bytes = Buffer.from(text);
    pending.push(bytes, nl);
    pendingBytes += bytes.length + 1;
    if (pendingBytes > 1 << 22) {
      if (!out.write(Buffer.concat(pending, pendingBytes))) await once(out, 'drain');
      pending = [];
      pendingBytes = 0;
    }
  }
  out.end(Buffer.concat(pending, pendingBytes));
  await once(out, 'finish');
  return damaged;
}
