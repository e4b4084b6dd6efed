// A small seeded PRNG (sfc32, seeded through splitmix32) and the samplers the
// generators need. Same seed, same sequence, on every machine.
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | undefined;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.next();
  }

  /** uniform in [0, 1) */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  int(minInclusive: number, maxInclusive: number): number {
    return minInclusive + Math.floor(this.next() * (maxInclusive - minInclusive + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** standard normal (Box-Muller, caching the second value) */
  normal(): number {
    if (this.spare !== undefined) {
      const v = this.spare;
      this.spare = undefined;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * this.next();
    this.spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  }
}

/** Samples index i with probability weights[i] / sum(weights). */
export class WeightedChoice {
  private readonly cdf: Float64Array;

  constructor(weights: readonly number[]) {
    this.cdf = new Float64Array(weights.length);
    let sum = 0;
    weights.forEach((w, i) => {
      sum += Math.max(0, w);
      this.cdf[i] = sum;
    });
    if (sum <= 0) throw new Error('WeightedChoice needs at least one positive weight');
    for (let i = 0; i < this.cdf.length; i++) this.cdf[i] /= sum;
  }

  pick(random: Random): number {
    const u = random.next();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Linear interpolation between year anchors such as {"2001": 1.5, "2016": 0.5}. */
export function interpolateAnchors(anchors: Record<string, number>, year: number): number {
  const points = Object.entries(anchors)
    .map(([y, v]) => [Number(y), v] as const)
    .sort((p, q) => p[0] - q[0]);
  if (year <= points[0][0]) return points[0][1];
  for (let i = 1; i < points.length; i++) {
    const [y1, v1] = points[i];
    const [y0, v0] = points[i - 1];
    if (year <= y1) return v0 + ((v1 - v0) * (year - y0)) / (y1 - y0);
  }
  return points[points.length - 1][1];
}
