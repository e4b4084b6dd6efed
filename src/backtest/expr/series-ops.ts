// The series operators of the protocol over Float64Array, NaN meaning
// "undefined". A rolling window is defined only when all of its n values are:
// warm-up days and any undefined input inside the window give NaN.
export type Series = Float64Array;

const nan = (n: number) => new Float64Array(n).fill(NaN);

export function delay(x: Series, n: number): Series {
  const out = nan(x.length);
  for (let t = n; t < x.length; t++) out[t] = x[t - n];
  return out;
}

/** Applies `f` to each full window x[t-n+1..t]; NaN where the window is short or holds a NaN. */
function rolling(x: Series, n: number, f: (x: Series, from: number, to: number) => number): Series {
  const out = nan(x.length);
  let lastNaN = -1; // index of the most recent NaN seen
  for (let t = 0; t < x.length; t++) {
    if (Number.isNaN(x[t])) lastNaN = t;
    const from = t - n + 1;
    if (from >= 0 && lastNaN < from) out[t] = f(x, from, t);
  }
  return out;
}

const sumOf = (x: Series, a: number, b: number) => {
  let s = 0;
  for (let i = a; i <= b; i++) s += x[i];
  return s;
};

export const sum = (x: Series, n: number) => rolling(x, n, sumOf);
export const mean = (x: Series, n: number) => rolling(x, n, (v, a, b) => sumOf(v, a, b) / n);

export const tsMax = (x: Series, n: number) =>
  rolling(x, n, (v, a, b) => {
    let m = -Infinity;
    for (let i = a; i <= b; i++) if (v[i] > m) m = v[i];
    return m;
  });

export const tsMin = (x: Series, n: number) =>
  rolling(x, n, (v, a, b) => {
    let m = Infinity;
    for (let i = a; i <= b; i++) if (v[i] < m) m = v[i];
    return m;
  });

/** Sample variance (ddof = 1), two-pass for accuracy. */
function varianceOf(v: Series, a: number, b: number): number {
  const n = b - a + 1;
  const m = sumOf(v, a, b) / n;
  let ss = 0;
  for (let i = a; i <= b; i++) ss += (v[i] - m) ** 2;
  return ss / (n - 1);
}

export const variance = (x: Series, n: number) => rolling(x, n, varianceOf);
export const std = (x: Series, n: number) => rolling(x, n, (v, a, b) => Math.sqrt(varianceOf(v, a, b)));

/** Sample skewness, the adjusted Fisher-Pearson G1 that pandas' rolling skew uses; NaN when the window is flat. */
export const skew = (x: Series, n: number) =>
  rolling(x, n, (v, a, b) => {
    const m = sumOf(v, a, b) / n;
    let m2 = 0;
    let m3 = 0;
    for (let i = a; i <= b; i++) {
      const d = v[i] - m;
      m2 += d * d;
      m3 += d * d * d;
    }
    m2 /= n;
    m3 /= n;
    if (m2 === 0) return NaN;
    return (Math.sqrt(n * (n - 1)) / (n - 2)) * (m3 / m2 ** 1.5);
  });

/** Least-squares slope of the window's values against 0..n-1. */
export const linearRegSlope = (x: Series, n: number) => {
  const xMean = (n - 1) / 2;
  let sxx = 0;
  for (let i = 0; i < n; i++) sxx += (i - xMean) ** 2;
  return rolling(x, n, (v, a, b) => {
    const yMean = sumOf(v, a, b) / n;
    let sxy = 0;
    for (let i = a; i <= b; i++) sxy += (i - a - xMean) * (v[i] - yMean);
    return sxy / sxx;
  });
};

/**
 * A recursive filter Y_t = w*X_t + (1-w)*Y_{t-1}, seeded with the first defined
 * X. An undefined X later gives an undefined Y that day and leaves the state as it was.
 */
function recursive(x: Series, weight: number): Series {
  const out = nan(x.length);
  let y = NaN;
  for (let t = 0; t < x.length; t++) {
    if (Number.isNaN(x[t])) continue;
    y = Number.isNaN(y) ? x[t] : weight * x[t] + (1 - weight) * y;
    out[t] = y;
  }
  return out;
}

export const ema = (x: Series, n: number) => recursive(x, 2 / (n + 1));
/** SMA(X, n, m), the Chinese convention: Y_t = (m*X_t + (n-m)*Y_{t-1}) / n. */
export const smaRecursive = (x: Series, n: number, m: number) => recursive(x, m / n);

export function cumMax(x: Series): Series {
  const out = nan(x.length);
  let m = NaN;
  for (let t = 0; t < x.length; t++) {
    if (!Number.isNaN(x[t]) && (Number.isNaN(m) || x[t] > m)) m = x[t];
    out[t] = Number.isNaN(x[t]) ? NaN : m;
  }
  return out;
}

export function map1(x: Series, f: (a: number) => number): Series {
  const out = new Float64Array(x.length);
  for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) ? NaN : f(x[t]);
  return out;
}

export function map2(x: Series, y: Series, f: (a: number, b: number) => number): Series {
  const out = new Float64Array(x.length);
  for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : f(x[t], y[t]);
  return out;
}

// The elementwise binary operators, each its own loop: one shared loop calling
// a different closure per operator is several times slower once V8 sees them all.
// Same rule as map2: an undefined operand gives undefined.
export const BINARY_OPS = {
  '+': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] + y[t];
    return out;
  },
  '-': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] - y[t];
    return out;
  },
  '*': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] * y[t];
    return out;
  },
  '>': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] > y[t] ? 1 : 0;
    return out;
  },
  '<': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] < y[t] ? 1 : 0;
    return out;
  },
  '>=': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] >= y[t] ? 1 : 0;
    return out;
  },
  '<=': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] <= y[t] ? 1 : 0;
    return out;
  },
  '==': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] === y[t] ? 1 : 0;
    return out;
  },
  '!=': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] !== y[t] ? 1 : 0;
    return out;
  },
  // both operands are defined here, so "truthy" is just "non-zero"
  '&&': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] !== 0 && y[t] !== 0 ? 1 : 0;
    return out;
  },
  '||': (x: Series, y: Series): Series => {
    const out = new Float64Array(x.length);
    for (let t = 0; t < x.length; t++) out[t] = Number.isNaN(x[t]) || Number.isNaN(y[t]) ? NaN : x[t] !== 0 || y[t] !== 0 ? 1 : 0;
    return out;
  },
};

/** Division where a zero (or undefined) denominator gives undefined. */
export const divide = (x: Series, y: Series) => map2(x, y, (a, b) => (b === 0 ? NaN : a / b));
