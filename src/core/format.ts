// Number formatting shared by narrators and renderers: one style everywhere.
export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');

export function fmtNumber(n: number, digits = 2): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** 0.1234 -> "12.34%" */
export const fmtPercent = (fraction: number, digits = 2) => `${fmtNumber(fraction * 100, digits)}%`;
