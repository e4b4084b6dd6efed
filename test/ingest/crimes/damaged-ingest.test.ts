// Bad data never stops a load: each kind of damage costs its own line (with
// the line number and the reason in the rejects file) and every other row loads.
import { portalRow } from '../../helpers/crime-data.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestCsv, type CsvSource } from '../../../src/ingest/csv-ingest.js';
import { CRIMES_SPEC, PORTAL_CSV_HEADER } from '../../../src/ingest/crimes/crime-table.js';
import { portalCsvSource } from '../../../src/ingest/crimes/portal-csv.js';
import { generateCrimes } from '../../../src/ingest/generate/crimes.js';
import { damageCsv } from '../../../src/ingest/generate/damage.js';
import { toCopyLine } from '../../../src/ingest/copy-text.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { parseSimpleCsv, tempDir } from '../../helpers/files.js';

const HEADER = PORTAL_CSV_HEADER.join(',');
const row = (id: number) => portalRow(id);

let db: TestDatabase;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

async function load(name: string, content: Buffer | string, source: CsvSource = portalCsvSource) {
  await db.pool.query('TRUNCATE crimes');
  const file = tmp.file(name);
  writeFileSync(file, content);
  const summary = await ingestCsv({ pool: db.pool, file, spec: CRIMES_SPEC, source, rejectsPath: tmp.file(`${name}.rejects.csv`) });
  const rejects = summary.rejectsPath ? parseSimpleCsv(readFileSync(summary.rejectsPath, 'utf8')).slice(1) : [];
  const { rows } = await db.pool.query<{ id: number }>('SELECT id FROM crimes ORDER BY id');
  return { summary, rejects, ids: rows.map((r) => r.id) };
}

describe('ingest of a damaged portal CSV', () => {
  it('rejects each damaged line alone, with its line number and reason, and loads every other row', async () => {
    const stray = row(2).slice(0, -1); // the closing quote of Location lost: the next line's first quote "closes" it
    const nul = row(4).replace('047XX', '04\0XX');
    const [beforeBad, afterBad] = row(5).split('OHIO');
    const content = Buffer.concat([
      Buffer.from([HEADER, row(1), stray, row(3), nul, ''].join('\n')),
      Buffer.from(beforeBad),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(`OHIO${afterBad}\n`),
      Buffer.from([row(6).replace('BATTERY', 'X'.repeat(3000)), row(7).split(',').slice(0, 11).join(','), row(8), ''].join('\n')),
    ]);
    const { summary, rejects, ids } = await load('damaged.csv', content);
    expect(rejects.map(([line, reason]) => [line, reason])).toEqual([
      [
        '3',
        `malformed CSV: unterminated quote starting at line 3, column ${stray.indexOf('"') + 1} (closing it on line 4 does not give a valid record)`,
      ],
      ['5', `NUL byte at column ${nul.indexOf('\0') + 1} (PostgreSQL text cannot hold one)`],
      ['6', `invalid UTF-8 at byte ${beforeBad.length + 1} of the line (0xc3)`],
      ['7', 'Primary Type: 3,000 characters, more than the 500 a value may have'],
      ['8', 'expected 22 fields, found 11'],
    ]);
    expect(rejects[0][2]).toBe(stray);
    expect(rejects[1][2]).toBe(nul.replace('\0', '\u2400'));
    expect(ids).toEqual([1, 3, 8]);
    expect(summary).toMatchObject({ rowsRead: 8, inserted: 3, rejected: 5 });
  });

  it('on 20,000 generated rows with 1% damaged, the rejects are exactly the damaged lines', async () => {
    const clean = tmp.file('clean.csv');
    await generateCrimes({ rows: 20_000, seed: 11, out: clean });
    const damaged = await damageCsv({ input: clean, output: tmp.file('damaged-1pc.csv'), every: 100 });
    expect(damaged).toHaveLength(200);
    const { summary, rejects } = await load('damaged-1pc.csv', readFileSync(tmp.file('damaged-1pc.csv')));
    expect(summary).toMatchObject({ rowsRead: 20_000, inserted: 19_800, rejected: 200 });
    const reasonOf: Record<string, RegExp> = {
      'stray quote': /^malformed CSV: unterminated quote starting at line (\d+), column \d+ \(/,
      'NUL byte': /^NUL byte at column \d+ /,
      'invalid UTF-8': /^invalid UTF-8 at byte \d+ of the line \(0xc3\)$/,
      'oversized value': /^Primary Type: 3,000 characters, more than the 500 a value may have$/,
      'wrong column count': /^expected 22 fields, found 11$/,
    };
    expect(rejects.map(([line]) => Number(line))).toEqual(damaged.map((d) => d.line));
    rejects.forEach(([, reason], i) => expect(reason, `line ${damaged[i].line}`).toMatch(reasonOf[damaged[i].kind]));
  });

  it('loads 20,000 rows after a quote that never closes, in linear time', async () => {
    // rows without any quoted field, so that nothing closes the stray quote: the old reader took minutes here
    const clean = tmp.file('unquoted.csv');
    await generateCrimes({ rows: 20_000, seed: 12, out: clean });
    const lines = readFileSync(clean, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => l.replace(/,"\([^"]*\)"$/, ','));
    const unquoted = lines.filter((l) => !l.includes('"'));
    unquoted[2] = unquoted[2].replace(/,$/, ',"(41.8');
    const { summary, rejects } = await load('stray.csv', unquoted.join('\n') + '\n');
    expect(rejects.map(([line, reason]) => [line, reason])).toEqual([
      ['3', `malformed CSV: unterminated quote starting at line 3, column ${unquoted[2].length - 5} (no closing quote within 8 lines)`],
    ]);
    const rows = unquoted.length - 1; // after the header
    expect(rows).toBeGreaterThan(19_000);
    expect(summary).toMatchObject({ rowsRead: rows, inserted: rows - 1, rejected: 1 });
  });

  it('rejects a row that PostgreSQL refuses (an index entry too large) and loads the rest of its batch', async () => {
    // A source without the length check: the crimes_type_year_idx entry for this value exceeds the B-tree limit.
    let seed = 1;
    const noise = Array.from({ length: 4_000 }, () => String.fromCharCode(33 + ((seed = (seed * 48_271) % 2_147_483_647) % 90)))
      .join('')
      .replace(/[",\\]/g, 'a');
    const unchecked: CsvSource = {
      header: PORTAL_CSV_HEADER,
      parseRow: (f) => ({
        values: toCopyLine([
          f[0],
          f[1],
          '2015-03-18 19:44:00',
          f[3],
          f[4],
          f[5],
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          2015,
          null,
          null,
          null,
          null,
        ]),
      }),
    };
    const lines = [HEADER, row(1), row(2).replace('BATTERY', () => noise), row(3), row(4)];
    const { summary, rejects, ids } = await load('refused.csv', lines.join('\n') + '\n', unchecked);
    expect(rejects).toHaveLength(1);
    expect(rejects[0][0]).toBe('3');
    expect(rejects[0][1]).toMatch(
      /^refused by PostgreSQL: index row size \d+ exceeds btree version \d maximum \d+ for index "crimes_type_year_idx"$/,
    );
    expect(rejects[0][2]).toBe(lines[2]); // the source text, read back from the file
    expect(ids).toEqual([1, 3, 4]);
    expect(summary).toMatchObject({ inserted: 3, rejected: 1 });
  });
});
