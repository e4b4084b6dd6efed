// "Did you mean": the known names closest to a typo, by edit distance.
function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

export function closest(word: string, known: readonly string[], count = 3): string[] {
  const w = word.toLowerCase();
  return [...new Set(known)]
    .map((k) => ({ k, d: editDistance(w, k.toLowerCase()) - (k.toLowerCase().startsWith(w.slice(0, 2)) ? 0.5 : 0) }))
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, count)
    .map((x) => x.k);
}
