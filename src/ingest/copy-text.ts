// PostgreSQL COPY text format: tab-separated, \N for NULL, backslash escapes.
export type CopyValue = string | number | boolean | null | undefined;

function escapeText(value: string): string {
  return /[\\\t\n\r]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : value;
}

/**
 * One COPY line. Built with join(), which makes one flat string: appending
 * field by field would leave a tree of ~40 string pieces per row that keeps
 * the source text alive, hundreds of MB for a batch.
 */
export function toCopyLine(values: readonly CopyValue[]): string {
  const out = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out[i] = v === null || v === undefined ? '\\N' : typeof v === 'string' ? escapeText(v) : String(v);
  }
  return out.join('\t');
}
