// Number formatting shared by narrators and renderers: one style everywhere.
// Formatters are made once per number of digits and kept: toLocaleString with
// options builds a new Intl.NumberFormat on every call, and a whole-market
// ranking formats tens of thousands of numbers (1.7 s of a profile of serve
// was spent there, on the event loop).
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const byDigits = new Map<number, Intl.NumberFormat>();

export const fmtInt = (n: number) => integer.format(Math.round(n));

export function fmtNumber(n: number, digits = 2): string {
  let f = byDigits.get(digits);
  if (!f) byDigits.set(digits, (f = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })));
  return f.format(n);
}

/** 0.1234 -> "12.34%" */
export const fmtPercent = (fraction: number, digits = 2) => `${fmtNumber(fraction * 100, digits)}%`;
