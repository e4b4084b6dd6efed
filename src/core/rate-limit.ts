// Per-user and per-channel limits on questions: a sliding one-minute window in
// process memory (a limit is a courtesy, not a security boundary).
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a hit; returns the seconds to wait when over the limit, else 0. */
  take(key: string): number {
    const t = this.now();
    const recent = (this.hits.get(key) ?? []).filter((h) => h > t - 60_000);
    if (recent.length >= this.perMinute) {
      this.hits.set(key, recent);
      return Math.ceil((recent[0] + 60_000 - t) / 1000);
    }
    recent.push(t);
    this.hits.set(key, recent);
    return 0;
  }
}
