// Slack's data blocks from an answer's table and chart: what fits goes native
// and passes the published limits; what does not is left to the classic blocks.
import { describe, expect, it } from 'vitest';
import { chartBlock, dataTableBlock } from '../../../src/channels/slack/native-blocks.js';
import type { AnswerTable, ChartSpec } from '../../../src/core/answer.js';
import { blockKitProblems, LIMITS } from '../../helpers/block-kit-limits.js';
import { loadConfig } from '../../../src/config/env.js';

const table = (rows: number, columns = 3): AnswerTable => ({
  columns: Array.from({ length: columns }, (_, i) => (i === 0 ? 'area' : `n${i}`)),
  rows: Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, c) => (c === 0 ? `area ${r}` : r * 1000 + c))),
  rowCount: rows,
  truncated: false,
});
const chart = (points: number, extra: Partial<ChartSpec> = {}): ChartSpec => ({
  kind: 'bar',
  title: 'Thefts by community area',
  labels: Array.from({ length: points }, (_, i) => `area ${i}`),
  series: [{ name: 'thefts', values: Array.from({ length: points }, (_, i) => i * 10), axis: 'left', fill: false }],
  ...extra,
});
const valid = (block: ReturnType<typeof chartBlock>) => blockKitProblems({ text: 'x', blocks: [block!] });

describe('data_table', () => {
  it('numbers as raw_number (formatted text too), text as raw_text, a header row, ten a page', () => {
    const t: AnswerTable = {
      columns: ['Candidate', 'Return', 'Trades', 'Note'],
      rows: [
        ['RSI.n = 6', '60.81%', 12, null],
        ['RSI.n = 14', '-1,234.50', 3, 'a'],
      ],
      rowCount: 2,
      truncated: false,
    };
    const b = dataTableBlock(t, 'Best parameter')!;
    expect(b.rows).toEqual([
      [
        { type: 'raw_text', text: 'Candidate' },
        { type: 'raw_text', text: 'Return' },
        { type: 'raw_text', text: 'Trades' },
        { type: 'raw_text', text: 'Note' },
      ],
      [
        { type: 'raw_text', text: 'RSI.n = 6' },
        { type: 'raw_number', value: 60.81, text: '60.81%' },
        { type: 'raw_number', value: 12, text: '12' },
        { type: 'raw_text', text: '–' },
      ],
      [
        { type: 'raw_text', text: 'RSI.n = 14' },
        { type: 'raw_number', value: -1234.5, text: '-1,234.50' },
        { type: 'raw_number', value: 3, text: '3' },
        { type: 'raw_text', text: 'a' },
      ],
    ]);
    expect(b.page_size).toBe(2);
    expect(valid(b)).toEqual([]);
  });

  it('at most 100 rows; more than 20 columns, or a first row past the character budget, stays classic', () => {
    const b = dataTableBlock(table(250), 'many')!;
    expect((b.rows as unknown[]).length).toBe(101);
    expect(b.page_size).toBe(10);
    expect(valid(b)).toEqual([]);
    expect(dataTableBlock(table(5, 21), 'wide')).toBeUndefined();
    const long: AnswerTable = {
      columns: ['text'],
      rows: Array.from({ length: 40 }, () => ['x'.repeat(400)]),
      rowCount: 40,
      truncated: false,
    };
    // past the 10,000 characters of all cells: the rows that fit (the caller says "showing N of M")
    const fitted = dataTableBlock(long, 'long')!;
    expect((fitted.rows as unknown[]).length).toBe(25); // the header and 24 rows of 400 characters
    expect(valid(fitted)).toEqual([]);
    const huge: AnswerTable = { columns: Array.from({ length: 20 }, (_, i) => `c${i}`), rows: [], rowCount: 1, truncated: false };
    huge.rows = [huge.columns.map(() => 'y'.repeat(600))];
    expect(dataTableBlock(huge, 'huge')).toBeUndefined();
  });

  it("an answer's table of 100 of 150 rows is shown whole in one data_table, Slack's published limit (issue 33)", () => {
    const answerTable = { ...table(100, 8), rowCount: 150, truncated: true };
    const b = dataTableBlock(answerTable, 'Thefts by block')!;
    expect((b.rows as unknown[]).length).toBe(LIMITS.dataTableRows + 1);
    expect(valid(b)).toEqual([]);
    // the answer carries that many rows unless told otherwise (SQL_DISPLAY_ROWS), not the 20 it used to
    expect(loadConfig({}).sqlDisplayRows).toBe(LIMITS.dataTableRows);
  });

  it('the validator sees a broken table', () => {
    const b = dataTableBlock(table(3), 'ok')!;
    (b.rows as unknown[][])[2].pop();
    expect(valid(b).join('\n')).toMatch(/rows\[2\]: 2 cells, the header has 3/);
  });
});

describe('data_visualization', () => {
  it('a bar or line chart of up to 20 points and 6 series goes native', () => {
    const b = chartBlock(chart(20))!;
    expect(b).toMatchObject({ type: 'data_visualization', chart: { type: 'bar', axis_config: { categories: chart(20).labels } } });
    expect(valid(b)).toEqual([]);
    const line = chartBlock(chart(12, { kind: 'line', yLabel: 'incidents' }))!;
    expect(line).toMatchObject({ chart: { type: 'line', axis_config: { y_label: 'incidents' } } });
    expect(valid(line)).toEqual([]);
    const long = chartBlock(chart(5, { title: 'A title much longer than the fifty characters Slack allows' }))!;
    expect((long.title as string).length).toBe(50);
  });

  it('stays a picture when Slack could not draw it the same', () => {
    expect(chartBlock(chart(21))).toBeUndefined();
    expect(chartBlock(chart(5, { kind: 'heatmap' }))).toBeUndefined();
    const gap = chart(5);
    gap.series[0].values[2] = null;
    expect(chartBlock(gap)).toBeUndefined();
    const twoAxes = chart(5);
    twoAxes.series.push({ name: 'Drawdown %', values: [0, -1, -2, -1, 0], axis: 'right', fill: true });
    expect(chartBlock(twoAxes)).toBeUndefined();
    expect(chartBlock(chart(5, { labels: ['a community area name past twenty', 'b', 'c', 'd', 'e'] }))).toBeUndefined();
  });
});
