// A client-side limit on requests and tokens per minute: callers wait for room
// instead of failing with the provider's 429. Tokens are reserved from an
// estimate before the call and corrected with the real usage after it.
export interface RateLimits {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

interface Entry {
  at: number;
  tokens: number;
}

export class RateLimiter {
  private readonly window: Entry[] = [];
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  private prune(): void {
    const cutoff = this.now() - 60_000;
    while (this.window.length && this.window[0].at <= cutoff) this.window.shift();
  }

  /** Waits until a request of about `tokens` fits; returns a function to record its real usage. */
  acquire(tokens: number): Promise<(actualTokens: number) => void> {
    const turn = this.chain.then(async () => {
      for (;;) {
        this.prune();
        const used = this.window.reduce((s, e) => s + e.tokens, 0);
        const fitsRequests = this.window.length < this.limits.requestsPerMinute;
        // a single request larger than the whole budget still goes, alone
        const fitsTokens = used + tokens <= this.limits.tokensPerMinute || this.window.length === 0;
        if (fitsRequests && fitsTokens) break;
        await this.sleep(Math.max(10, this.window[0].at + 60_000 - this.now()));
      }
      const entry = { at: this.now(), tokens };
      this.window.push(entry);
      return (actual: number) => {
        entry.tokens = actual;
      };
    });
    this.chain = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }
}
