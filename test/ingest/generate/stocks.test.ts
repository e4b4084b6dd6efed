import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateStocks, type StockGeneratorResult } from '../../../src/ingest/generate/stocks.js';
import { tradingDays } from '../../../src/ingest/generate/trading-calendar.js';
import { parseStockRow } from '../../../src/ingest/stocks/stock-table.js';
import { parseSimpleCsv, tempDir } from '../../helpers/files.js';

const tmp = tempDir();
let result: StockGeneratorResult;
let rows: string[][];

beforeAll(async () => {
  result = await generateStocks({ tickers: 120, from: '2020-01-02', to: '2025-09-30', seed: 9, outDir: tmp.dir });
  rows = Object.values(result.files).flatMap((f) => parseSimpleCsv(readFileSync(f, 'utf8')).slice(1));
});
afterAll(() => tmp.remove());

describe('trading calendar', () => {
  it("has BacktestBench's 1,395 trading days from 2020-01-02 to 2025-09-30", () => {
    const days = tradingDays('2020-01-02', '2025-09-30');
    expect(days).toHaveLength(1395);
    expect(days[0]).toBe('2020-01-02');
    expect(days.at(-1)).toBe('2025-09-30');
    // Spring Festival 2024 and National Day 2023 are closed
    expect(days).not.toContain('2024-02-12');
    expect(days).not.toContain('2023-10-02');
    expect(tradingDays('2024-01-01', '2024-12-31')).toHaveLength(242);
  });
});

describe('generate stocks', () => {
  it('lists the well-known tickers first and real code ranges per exchange', () => {
    const codes = new Map(rows.map((r) => [r[0], r[1]]));
    expect(codes.get('600519')).toBe('Kweichow Moutai Co., Ltd.');
    expect(codes.get('000001')).toBe('Ping An Bank Co., Ltd.');
    expect(codes.size).toBe(120);
    const sh = parseSimpleCsv(readFileSync(result.files.shanghai, 'utf8')).slice(1);
    const sz = parseSimpleCsv(readFileSync(result.files.shenzhen, 'utf8')).slice(1);
    const bj = parseSimpleCsv(readFileSync(result.files.beijing, 'utf8')).slice(1);
    expect(sh.every((r) => /^(600|601|603|605|688)/.test(r[0]))).toBe(true);
    expect(sz.every((r) => /^(000|001|002|003|300|301)/.test(r[0]))).toBe(true);
    expect(bj.every((r) => /^(43|83|87)/.test(r[0]))).toBe(true);
  });

  it("writes only valid bars, on trading days, within each board's daily limit", () => {
    const days = new Set(tradingDays('2020-01-02', '2025-09-30'));
    const problems: string[] = [];
    for (const r of rows) {
      const parsed = parseStockRow(r);
      if ('reason' in parsed) problems.push(`${r[0]} ${r[3]}: ${parsed.reason}`);
      if (!days.has(r[3])) problems.push(`${r[0]} ${r[3]}: not a trading day`);
      const limit = /^(688|300|301)/.test(r[0]) ? 20 : /^(43|83|87)/.test(r[0]) ? 30 : r[2].startsWith('ST ') ? 5 : 10;
      // limit prices are rounded to 0.01 yuan, as the exchanges do: up to half a fen over the limit
      const prevClose = Number(r[5]) - Number(r[10]);
      if (Math.abs(Number(r[11])) > limit + 0.5 / prevClose + 1e-4) problems.push(`${r[0]} ${r[3]}: ${r[11]}% beyond ${limit}%`);
    }
    expect(problems).toEqual([]);
    expect(rows.length).toBeGreaterThan(100_000);
  });

  it('gives each listed ticker one bar per trading day from its listing on', () => {
    const perTicker = new Map<string, string[]>();
    for (const r of rows) perTicker.set(r[0], [...(perTicker.get(r[0]) ?? []), r[3]]);
    const all = tradingDays('2020-01-02', '2025-09-30');
    for (const dates of perTicker.values()) {
      expect(dates).toEqual(all.slice(all.indexOf(dates[0])));
    }
    expect(perTicker.get('600519')).toHaveLength(1395);
  });

  it('shows volatility clustering: big moves follow big moves', () => {
    const moves = rows.filter((r) => r[0] === '600519').map((r) => Math.abs(Number(r[11])));
    const corr = (a: number[], b: number[]) => {
      const ma = a.reduce((s, x) => s + x, 0) / a.length;
      const mb = b.reduce((s, x) => s + x, 0) / b.length;
      let num = 0,
        da = 0,
        db = 0;
      a.forEach((x, i) => ((num += (x - ma) * (b[i] - mb)), (da += (x - ma) ** 2), (db += (b[i] - mb) ** 2)));
      return num / Math.sqrt(da * db);
    };
    expect(corr(moves.slice(1), moves.slice(0, -1))).toBeGreaterThan(0.05);
  });

  it('is deterministic for a seed', async () => {
    const again = await generateStocks({ tickers: 120, from: '2020-01-02', to: '2025-09-30', seed: 9, outDir: tmp.file('again') });
    expect(readFileSync(again.files.shenzhen, 'utf8')).toBe(readFileSync(result.files.shenzhen, 'utf8'));
  });
});
