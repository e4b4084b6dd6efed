import { isUtf8 } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RECORD_LINES, MAX_SPILL_CHARS, readCsvRecords, type CsvRecord } from '../../src/ingest/csv-records.js';
import { MAX_LINE_BYTES, firstInvalidUtf8 } from '../../src/ingest/csv-lines.js';
import { tempDir } from '../helpers/files.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

async function read(content: string): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const r of readCsvRecords(tmp.file(`f${Math.random()}.csv`, content))) out.push(r);
  return out;
}

describe('readCsvRecords', () => {
  it('splits fields, unquotes, and numbers lines', async () => {
    const records = await read('a,b,c\n1,"x, y","say ""hi"""\n\n2,,\n');
    expect(records.map((r) => [r.line, r.fields])).toEqual([
      [1, ['a', 'b', 'c']],
      [2, ['1', 'x, y', 'say "hi"']],
      [4, ['2', '', '']],
    ]);
  });

  it('skips a BOM, handles CRLF and a last line without a line end', async () => {
    const records = await read('\ufeffa,b\r\n1,2\r\n3,4');
    expect(records.map((r) => r.fields)).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
  });

  it('keeps a line break inside a quoted field and counts lines after it right', async () => {
    const records = await read('a,b\n1,"two\nlines"\n2,x\n');
    expect(records.map((r) => [r.line, r.fields])).toEqual([
      [1, ['a', 'b']],
      [2, ['1', 'two\nlines']],
      [4, ['2', 'x']],
    ]);
  });

  it('reports malformed records with their line and goes on', async () => {
    const records = await read('a,b\n1,x"y\n2,"ok"z\n3,fine\n4,"never closed\n');
    expect(records.map((r) => [r.line, r.error ?? r.fields])).toEqual([
      [1, ['a', 'b']],
      [2, 'malformed CSV: a quote inside an unquoted field at column 3'],
      [3, 'malformed CSV: unexpected text after a closing quote at column 7'],
      [4, ['3', 'fine']],
      [5, 'malformed CSV: unterminated quote starting at line 5, column 3 (no closing quote before the end of the file)'],
    ]);
  });

  it('reads records split across read chunks (1 MiB) intact', async () => {
    const long = 'x'.repeat(700_000);
    const records = await read(`a,b\n1,"${long},${long}"\n2,end\n`);
    expect(records[1].fields?.[1]).toBe(`${long},${long}`);
    expect(records[2]).toMatchObject({ line: 3, fields: ['2', 'end'] });
  });
});

describe('readCsvRecords on damaged files', () => {
  const readBytes = async (content: Buffer | string): Promise<CsvRecord[]> => {
    const out: CsvRecord[] = [];
    const file = tmp.file(`d${Math.random()}.csv`);
    writeFileSync(file, content);
    for await (const r of readCsvRecords(file)) out.push(r);
    return out;
  };
  const summary = (records: CsvRecord[]) => records.map((r) => [r.line, r.error ?? r.fields.join('|')]);

  it('rejects only the line of a quote that never closes and reads every line after it (20,000 lines, linear time)', async () => {
    // rows as long as the portal's: reading the rest of the file into one record again per line took minutes here
    const y = 'y'.repeat(240);
    const lines = ['a,b,c'];
    for (let i = 2; i <= 20_000; i++) lines.push(i === 3 ? `${i},x,"never closed` : `${i},x,${y}`);
    const records = await readBytes(lines.join('\n') + '\n');
    expect(records).toHaveLength(20_000);
    expect(records[2]).toEqual({
      line: 3,
      raw: '3,x,"never closed',
      error: `malformed CSV: unterminated quote starting at line 3, column 5 (no closing quote within ${MAX_RECORD_LINES} lines)`,
    });
    expect(records.filter((r) => r.error !== undefined)).toHaveLength(1);
    expect(records[3]).toMatchObject({ line: 4, fields: ['4', 'x', y] });
    expect(records[19_999]).toMatchObject({ line: 20_000, fields: ['20000', 'x', y] });
  });

  it(`accepts a quoted field over ${MAX_RECORD_LINES} lines, not over one more`, async () => {
    const body = (breaks: number) => Array.from({ length: breaks + 1 }, (_, i) => `p${i}`).join('\n');
    const ok = await readBytes(`a,b\n1,"${body(MAX_RECORD_LINES - 1)}"\n2,z\n`);
    expect(summary(ok)).toEqual([
      [1, 'a|b'],
      [2, `1|${body(MAX_RECORD_LINES - 1)}`],
      [2 + MAX_RECORD_LINES, '2|z'],
    ]);
    const tooLong = await readBytes(`a,b\n1,"${body(MAX_RECORD_LINES)}"\n2,z\n`);
    expect(tooLong[1]).toMatchObject({ line: 2, error: expect.stringContaining('unterminated quote starting at line 2, column 3') });
    // the lines after the rejected one are read again on their own: p1..p8 are one-field records, p8" is malformed
    expect(summary(tooLong).slice(2, 4)).toEqual([
      [3, 'p1'],
      [4, 'p2'],
    ]);
    expect(tooLong.at(-1)).toMatchObject({ line: 3 + MAX_RECORD_LINES, fields: ['2', 'z'] });
  });

  it(`stops a quoted field ${MAX_SPILL_CHARS / 1024} KiB past the end of its first line`, async () => {
    const long = 'y'.repeat(MAX_SPILL_CHARS / 2);
    const records = await readBytes(`a,b\n1,"x\n${long}\n${long}\n${long}"\n2,z\n`);
    expect(summary(records)).toEqual([
      [1, 'a|b'],
      [2, `malformed CSV: unterminated quote starting at line 2, column 3 (no closing quote within ${MAX_SPILL_CHARS / 1024} KiB)`],
      [3, long],
      [4, long],
      [5, 'malformed CSV: a quote inside an unquoted field at column 1'],
      [6, '2|z'],
    ]);
  });

  it('rejects only the line of a stray quote that the next line "closes", and reads that next line', async () => {
    expect(summary(await readBytes('a,b,c\n1,x,"stray\n2,"y, z"\n3,u,v\n'))).toEqual([
      [1, 'a|b|c'],
      [2, 'malformed CSV: unterminated quote starting at line 2, column 5 (closing it on line 3 does not give a valid record)'],
      [3, '2|y, z'],
      [4, '3|u|v'],
    ]);
  });

  it('rejects a line with invalid UTF-8 or a NUL byte, naming where, and reads the others', async () => {
    const content = Buffer.concat([
      Buffer.from('a,b\n1,caf\u00e9\n2,ab'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('\n3,x\u0000y\n4,ok\n5,'),
      Buffer.from([0xe2, 0x82]), // a truncated three-byte sequence at the end of the file
    ]);
    expect(summary(await readBytes(content))).toEqual([
      [1, 'a|b'],
      [2, '1|caf\u00e9'],
      [3, 'invalid UTF-8 at byte 5 of the line (0xc3)'],
      [4, 'NUL byte at column 4 (PostgreSQL text cannot hold one)'],
      [5, '4|ok'],
      [6, 'invalid UTF-8 at byte 3 of the line (0xe2)'],
    ]);
  });

  it('does not take a character split across two read chunks for invalid UTF-8', async () => {
    const pad = 'x'.repeat((1 << 20) - 'a\n1,'.length - 1); // "é" (2 bytes) straddles the 1 MiB chunk boundary
    const records = await readBytes(`a\n1,${pad}\u00e9z\n2,ok\n`);
    expect(records.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(records[1].fields?.[1].endsWith('\u00e9z')).toBe(true);
  });

  it(`rejects a line over ${MAX_LINE_BYTES >> 20} MiB without holding it, and reads the next`, async () => {
    const records = await readBytes(`a\n${'x'.repeat(MAX_LINE_BYTES + 10)}\nb\n`);
    expect(records.map((r) => [r.line, r.error ?? r.fields, r.raw.length])).toEqual([
      [1, ['a'], 1],
      [2, `line longer than ${MAX_LINE_BYTES >> 20} MiB (not read)`, 1025],
      [3, ['b'], 1],
    ]);
  });
});

describe('firstInvalidUtf8', () => {
  it('agrees with the platform validator on random bytes, and everything before it is valid', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let n = 0; n < 5000; n++) {
      // mostly ASCII and lead/continuation bytes, so that valid sequences happen too
      const bytes = Buffer.from(
        Array.from(
          { length: 1 + (next() % 12) },
          () => [0x41, 0x80, 0xbf, 0xc3, 0xe0, 0xed, 0xf0, 0xf4, 0xa0, 0x90, next() % 256][next() % 11],
        ),
      );
      const at = firstInvalidUtf8(bytes);
      expect(at === -1, bytes.toString('hex')).toBe(isUtf8(bytes));
      if (at >= 0) expect(isUtf8(bytes.subarray(0, at)), bytes.toString('hex')).toBe(true);
    }
  });
});
