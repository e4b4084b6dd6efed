// PostgreSQL COPY text format: tab-separated, \N for NULL, backslash escapes.
export type CopyValue = string | number | boolean | null | undefined;

function escapeText(value: string): string {
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : value;
}

export function toCopyLine(values: readonly CopyValue[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) line += '\t';
    if (v === null || v === undefined) line += '\\N';
    else if (typeof v === 'string') line += escapeText(v);
    else line += String(v);
  }
  return line;
}
