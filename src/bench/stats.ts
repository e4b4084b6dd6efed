// Order statistics for the benchmarks' figures.
export function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const median = (xs: number[]) => quantile(xs, 0.5);
