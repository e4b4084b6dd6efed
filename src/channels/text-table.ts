// An Answer table as aligned plain text, for renderers that have no table
// element (the terminal, a Slack code block). Numbers as every renderer shows them.
import type { AnswerTable, Cell } from '../core/answer.js';

export const cellText = (c: Cell): string => (c === null ? '' : typeof c === 'number' ? c.toLocaleString('en-US') : String(c));

export function alignedTable(t: AnswerTable, options: { maxRows?: number; maxCellWidth?: number } = {}): string {
  const max = options.maxCellWidth ?? Infinity;
  const clip = (s: string) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
  const rows = t.rows.slice(0, options.maxRows ?? t.rows.length).map((r) => r.map((c) => clip(cellText(c))));
  const header = t.columns.map(clip);
  const widths = header.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
