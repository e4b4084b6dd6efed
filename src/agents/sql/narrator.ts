// The deterministic narrator: the common result shapes in plain English, every
// number straight from the rows. Used when no LLM is configured, when the LLM
// fails, and when an LLM narration fails the number check.
import type { Cell } from '../../core/answer.js';
import { fmtNumber } from '../../core/format.js';
import { humanize, isNum, shapeOf, TIME_COLUMN, type QueryResult } from '../../core/result-shape.js';
import { shownValue } from '../../core/inert-text.js';

function fmtCell(v: Cell, column = ''): string {
  // years, hours and months are labels, not quantities: no thousands separator
  if (typeof v === 'number' && TIME_COLUMN.test(column)) return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : fmtNumber(v, Math.abs(v) < 10 ? 2 : 1);
  if (v === null) return 'none';
  return shownValue(String(v));
}

function firstValueColumn(r: QueryResult): number {
  const i = r.columns.findIndex((_, c) => c > 0 && r.rows.every((row) => row[c] === null || isNum(row[c])));
  return i < 0 ? 1 : i;
}

export function narrate(r: QueryResult): string {
  const shape = shapeOf(r);
  const more = r.truncated ? ` (${r.rowCount.toLocaleString('en-US')} rows in all; this reads the first ${r.rows.length})` : '';
  switch (shape) {
    case 'empty':
      return 'No rows matched the question.';
    case 'single':
      return (
        r.columns
          .map((c, i) => `${humanize(c)}: ${fmtCell(r.rows[0][i], c)}`)
          .join('; ')
          .replace(/^./, (ch) => ch.toUpperCase()) + '.'
      );
    case 'series': {
      const v = firstValueColumn(r);
      const label = humanize(r.columns[v]);
      const points = r.rows.filter((row) => isNum(row[v]));
      const first = points[0];
      const last = points[points.length - 1];
      const max = points.reduce((a, b) => ((b[v] as number) > (a[v] as number) ? b : a));
      const min = points.reduce((a, b) => ((b[v] as number) < (a[v] as number) ? b : a));
      const change =
        (first[v] as number) !== 0
          ? ` (${fmtNumber((((last[v] as number) - (first[v] as number)) / (first[v] as number)) * 100, 1)}%)`
          : '';
      return (
        `From ${r.columns[0]} ${fmtCell(first[0], r.columns[0])} to ${fmtCell(last[0], r.columns[0])}, ${label} went from ${fmtCell(first[v])} to ${fmtCell(last[v])}${change}. ` +
        `Highest: ${fmtCell(max[v])} in ${fmtCell(max[0], r.columns[0])}; lowest: ${fmtCell(min[v])} in ${fmtCell(min[0], r.columns[0])}.${more}`
      );
    }
    case 'comparison': {
      const v = firstValueColumn(r);
      const [a, b] = r.rows;
      const diff = (a[v] as number) - (b[v] as number);
      return `${fmtCell(a[0])}: ${fmtCell(a[v])} ${humanize(r.columns[v])}; ${fmtCell(b[0])}: ${fmtCell(b[v])} (a difference of ${fmtCell(Math.abs(diff))}).`;
    }
    case 'ranking': {
      const v = firstValueColumn(r);
      const top = r.rows.slice(0, 3);
      const rest = top.slice(1).map((row) => `${fmtCell(row[0])} (${fmtCell(row[v])})`);
      return (
        `${fmtCell(top[0][0])} comes first with ${fmtCell(top[0][v])} ${humanize(r.columns[v])}` +
        `${rest.length ? `, followed by ${rest.join(' and ')}` : ''}.${more}`
      );
    }
    case 'table':
      return `The query returned ${r.rowCount.toLocaleString('en-US')} row${r.rowCount === 1 ? '' : 's'}${more}.`;
  }
}

/** Numbers as written in a text: 12,345 / 3.5 / -2%. */
function numbersIn(text: string): number[] {
  return writtenNumbers(text).map((w) => w.value);
}

/** Each number with the decimals it was written with ("12.30" has 2). */
function writtenNumbers(text: string): { value: number; decimals: number }[] {
  return (text.match(/-?\d[\d,]*(\.\d+)?/g) ?? [])
    .map((s) => ({ value: Number(s.replace(/,/g, '')), decimals: s.includes('.') ? s.length - s.indexOf('.') - 1 : 0 }))
    .filter((w) => Number.isFinite(w.value));
}

/**
 * What a narration may cite, in linear time: every value; per numeric column its
 * sum, mean, min, max, each value's share of the sum, the change between
 * neighbouring rows and between first and last, min and max; per row the
 * ratio of two of its numbers (matching of incidents); fractions as percent;
 * the row count and the question's own numbers. Pairs of arbitrary rows are not
 * derivations: with hundreds of rows they made almost any number "derivable".
 */
function citable(r: QueryResult, question: string): number[] {
  const out: number[] = [r.rowCount, r.rows.length, ...numbersIn(question)];
  // a change between two values: the difference and the percentage change; `ratios` adds a/b and b/a in both forms
  const change = (a: number, b: number, ratios: boolean) => {
    out.push(b - a, Math.abs(b - a));
    if (a !== 0) out.push((b / a - 1) * 100, Math.abs((b / a - 1) * 100));
    if (!ratios) return;
    if (a !== 0) out.push((b / a) * 100, b / a);
    if (b !== 0) out.push(a / b, (a / b) * 100);
  };
  for (let c = 0; c < r.columns.length; c++) {
    const col: number[] = [];
    for (const row of r.rows) if (isNum(row[c])) col.push(row[c] as number);
    if (!col.length) continue;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const v of col) {
      out.push(v);
      if (Math.abs(v) <= 1) out.push(v * 100); // a fraction said as a percentage
      sum += v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    out.push(sum, sum / col.length, min, max);
    if (sum !== 0) for (const v of col) out.push((v / sum) * 100);
    for (let i = 1; i < col.length; i++) change(col[i - 1], col[i], false);
    change(col[0], col[col.length - 1], true);
    change(min, max, true);
  }
  for (const row of r.rows) {
    const nums = row.filter(isNum) as number[];
    if (nums.length > 6) continue;
    for (let i = 0; i < nums.length; i++) for (let j = i + 1; j < nums.length; j++) change(nums[j], nums[i], true);
  }
  return out;
}

/**
 * The number check of an LLM narration: every number in it must be citable
 * (see citable) after rounding to the decimals it was written with. Numbers
 * that are parts of labels ("037XX W CERMAK RD", "2001-08-19", a case number)
 * are read as the labels they are. Linear in the rows: a set per precision.
 */
export function uncheckedNumbers(narration: string, r: QueryResult, question: string): number[] {
  let text = narration;
  const labels = new Set<string>();
  for (const row of r.rows) {
    for (const c of row) {
      if (typeof c !== 'string' || !/\d/.test(c)) continue;
      labels.add(c);
      const day = /^\d{4}-\d{2}-\d{2}/.exec(c);
      if (day) labels.add(day[0]);
    }
  }
  for (const label of [...labels].sort((a, b) => b.length - a.length)) if (text.includes(label)) text = text.split(label).join(' ');
  const allowed = citable(r, question);
  // a few written numbers against the candidates: one pass each, no set of every rounding built
  const citableAt = (value: number, decimals: number) => {
    const p = 10 ** Math.min(decimals, 6);
    const key = Math.round(value * p);
    for (let i = 0; i < allowed.length; i++) if (Math.round(allowed[i] * p) === key) return true;
    return false;
  };
  return writtenNumbers(text)
    .filter(({ value, decimals }) => {
      if (citableAt(value, decimals)) return false;
      return !(Number.isInteger(value) && value >= 1 && value <= 10 && narration.includes(`top ${value}`));
    })
    .map((w) => w.value);
}
