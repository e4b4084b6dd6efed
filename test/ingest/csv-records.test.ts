import { afterAll, describe, expect, it } from 'vitest';
import { readCsvRecords, type CsvRecord } from '../../src/ingest/csv-records.js';
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
    expect(records.map((r) => r.fields)).toEqual([['a', 'b'], ['1', '2'], ['3', '4']]);
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
      [5, 'malformed CSV: unclosed quoted field at the end of the file'],
    ]);
  });

  it('reads records split across read chunks (1 MiB) intact', async () => {
    const long = 'x'.repeat(700_000);
    const records = await read(`a,b\n1,"${long},${long}"\n2,end\n`);
    expect(records[1].fields?.[1]).toBe(`${long},${long}`);
    expect(records[2]).toMatchObject({ line: 3, fields: ['2', 'end'] });
  });
});
