import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestCsv } from '../../../src/ingest/csv-ingest.js';
import { STOCK_COLUMNS, parseExchange, stockCsvSource, stockSpec } from '../../../src/ingest/stocks/stock-table.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { parseSimpleCsv, tempDir } from '../../helpers/files.js';

const tmp = tempDir();
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

const HEADER = STOCK_COLUMNS.join(',');
const BARS = [
  '600519,"Kweichow Moutai Co., Ltd.",Kweichow Moutai,2024-01-02,1715.00,1685.01,1718.19,1678.10,3215600,5443025000.00,-41.99,-2.4314',
  '600519,"Kweichow Moutai Co., Ltd.",Kweichow Moutai,2024-01-03,1681.11,1694.00,1695.22,1676.33,2015300,3398044000.00,8.99,0.5335',
];
const load = (name: string, lines: string[]) =>
  ingestCsv({
    pool: db.pool,
    file: tmp.file(name, [HEADER, ...lines].join('\n')),
    spec: stockSpec('shanghai'),
    source: stockCsvSource,
    rejectsPath: tmp.file(`${name}.rejects.csv`),
  });

describe('ingest stocks', () => {
  it('loads bars, rejects inconsistent ones with a reason, and re-running changes nothing', async () => {
    const bad = '600519,"Kweichow Moutai Co., Ltd.",Kweichow Moutai,2024-01-04,1700,1710,1705,1690,1,1,1,1';
    const first = await load('a.csv', [...BARS, bad, '60051,x,y,2024-01-05,1,1,1,1,1,1,0,0']);
    expect(first).toMatchObject({ inserted: 2, rejected: 2 });
    expect(
      parseSimpleCsv(readFileSync(first.rejectsPath!, 'utf8'))
        .slice(1)
        .map((r) => [r[0], r[1]]),
    ).toEqual([
      ['4', 'prices inconsistent: high 1705 and low 1690 must bound open 1700 and close 1710'],
      ['5', 'stock_code: "60051" is not a 6-digit code'],
    ]);
    const again = await load('b.csv', BARS);
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 2 });
    const { rows } = await db.pool.query(`SELECT stock_code, trade_date, closing_price FROM shanghai_stock_exchange ORDER BY trade_date`);
    expect(rows).toEqual([
      { stock_code: '600519', trade_date: '2024-01-02', closing_price: 1685.01 },
      { stock_code: '600519', trade_date: '2024-01-03', closing_price: 1694 },
    ]);
  });

  it('replaces a corrected bar', async () => {
    const fixed = BARS[1].replace(',1694.00,', ',1693.50,');
    expect(await load('c.csv', [fixed])).toMatchObject({ updated: 1 });
    const { rows } = await db.pool.query(`SELECT closing_price FROM shanghai_stock_exchange WHERE trade_date = '2024-01-03'`);
    expect(rows[0].closing_price).toBe(1693.5);
  });

  it('knows the exchanges by name, abbreviation or table', () => {
    expect(parseExchange('SSE')).toBe('shanghai');
    expect(parseExchange('shenzhen_stock_exchange')).toBe('shenzhen');
    expect(() => parseExchange('nyse')).toThrow('Unknown exchange "nyse": expected shanghai (SSE), shenzhen (SZSE) or beijing (BSE)');
  });
});
