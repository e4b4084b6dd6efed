// Slack's own blocks for data (docs.slack.dev/reference/block-kit/blocks):
// a result table as a `data_table` (sortable and paged by the client, numbers
// as raw_number so they sort as numbers) and a small chart as a
// `data_visualization` (bar or line, drawn by the client, no image to host).
// Each returns undefined when the data does not fit the block's published
// limits; the caller then draws it the classic way (a code block, a PNG).
import type { AnswerTable, ChartSpec } from '../../core/answer.js';
import type { Block } from './block-types.js';
import { cellText } from '../text-table.js';

/** data_table: a header row and at most 100 rows, at most 20 columns, 1 to 100 rows a page (docs: data-table-block). */
const DATA_TABLE = { maxRows: 100, maxColumns: 20, pageSize: 10, maxCell: 500, maxCharacters: 10_000 } as const;

/**
 * data_visualization: title at most 50 characters; bar, area and line: 1 to 6 series of 1 to 20 points, series
 * names and point labels at most 20 characters, axis titles at most 50; two charts a message (docs:
 * data-visualization-block).
 */
const DATA_VISUALIZATION = { title: 50, maxSeries: 6, maxPoints: 20, label: 20, axisLabel: 50, perMessage: 2 } as const;

/** "1,234", "-0.75", "60.81%": a number as text, read back as the number it shows. */
const FORMATTED_NUMBER = /^-?\d{1,3}(,\d{3})*(\.\d+)?%?$|^-?\d+(\.\d+)?%?$/;

type TableCell = { type: 'raw_text'; text: string } | { type: 'raw_number'; value: number; text: string };

function cell(v: AnswerTable['rows'][number][number]): TableCell {
  if (typeof v === 'number' && Number.isFinite(v)) return { type: 'raw_number', value: v, text: cellText(v) };
  const text = cellText(v ?? null);
  // a KPI or count already formatted sorts as its number, and reads as formatted
  if (FORMATTED_NUMBER.test(text)) return { type: 'raw_number', value: Number(text.replace(/[,%]/g, '')), text };
  // an empty cell: raw_text needs a character
  return { type: 'raw_text', text: text ? text.slice(0, DATA_TABLE.maxCell) : '–' };
}

/** The table as a data_table of its first `rows` rows, or undefined when it does not fit one. */
export function dataTableBlock(t: AnswerTable, caption: string, rows = DATA_TABLE.maxRows): Block | undefined {
  if (!t.columns.length || !t.rows.length || t.columns.length > DATA_TABLE.maxColumns) return undefined;
  const header: TableCell[] = t.columns.map((c) => ({ type: 'raw_text', text: c.slice(0, DATA_TABLE.maxCell) || '–' }));
  const body = t.rows.slice(0, Math.min(rows, DATA_TABLE.maxRows)).map((r) => t.columns.map((_, i) => cell(r[i] ?? null)));
  // all cells together at most 10,000 characters: a wide table of 100 rows keeps the rows that fit ("showing N of M")
  const width = (cells: TableCell[]) => cells.reduce((n, c) => n + c.text.length, 0);
  let characters = width(header) + body.reduce((n, r) => n + width(r), 0);
  while (characters > DATA_TABLE.maxCharacters && body.length > 1) characters -= width(body.pop()!);
  if (characters > DATA_TABLE.maxCharacters) return undefined;
  return {
    type: 'data_table',
    caption: caption.slice(0, 200),
    page_size: Math.min(DATA_TABLE.pageSize, body.length),
    rows: [header, ...body],
  };
}

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/**
 * The chart as a data_visualization, or undefined when it must stay a picture: a heat map, a second axis
 * (drawdown under equity), a gap (null) in a series, more than 20 points or 6 series, or labels that do not fit.
 */
export function chartBlock(chart: ChartSpec): Block | undefined {
  if (chart.kind === 'heatmap' || !chart.series.length || !chart.labels.length) return undefined;
  if (chart.labels.length > DATA_VISUALIZATION.maxPoints || chart.series.length > DATA_VISUALIZATION.maxSeries) return undefined;
  if (chart.series.some((s) => s.axis === 'right' || s.values.length !== chart.labels.length || s.values.some((v) => v === null)))
    return undefined;
  // a label cut short could become another's twin: the categories must stay distinct and whole
  if (chart.labels.some((l) => !l || l.length > DATA_VISUALIZATION.label) || new Set(chart.labels).size !== chart.labels.length)
    return undefined;
  const names = chart.series.map((s) => cut(s.name || 'value', DATA_VISUALIZATION.label));
  if (new Set(names).size !== names.length) return undefined;
  return {
    type: 'data_visualization',
    title: cut(chart.title, DATA_VISUALIZATION.title),
    chart: {
      type: chart.kind === 'line' ? 'line' : 'bar',
      series: chart.series.map((s, i) => ({
        name: names[i],
        data: s.values.map((v, j) => ({ label: chart.labels[j], value: v as number })),
      })),
      axis_config: {
        categories: chart.labels,
        ...(chart.xLabel ? { x_label: cut(chart.xLabel, DATA_VISUALIZATION.axisLabel) } : {}),
        ...(chart.yLabel ? { y_label: cut(chart.yLabel, DATA_VISUALIZATION.axisLabel) } : {}),
      },
    },
  };
}
