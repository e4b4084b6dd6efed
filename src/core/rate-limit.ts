// Per-user and per-channel limits on questions: a token bucket per key in
// process memory (a limit is a courtesy, not a security boundary). A bucket
// holds up to `burst` tokens and refills at `perMinute` tokens a minute, so a
// person can ask a burst of turns at once and then keeps the steady rate. A
// turn costs what it asks of the bot: a new question 1 token, a follow-up
// fragment ("by month", "only arrests") or a button half of one (turnCost), so
// an analyst's brisk session of fragments and clicks fits where a flood of new
// questions does not.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;

  /** `perMinute` tokens refilled a minute, at most `burst` kept (default: `perMinute`). */
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    burst?: number,
  ) {
    this.burst = Math.max(burst ?? perMinute, 1);
  }

  /** Takes `cost` tokens from the key's bucket; returns the seconds to wait when it has too few (nothing taken), else 0. */
  take(key: string, cost = 1): number {
    const t = this.now();
    const saved = this.buckets.get(key);
    const refilled = saved ? Math.min(this.burst, saved.tokens + ((t - saved.at) * this.perMinute) / 60_000) : this.burst;
    // a turn dearer than a full bucket (a burst under 1) waits for a full bucket instead of forever
    const need = Math.min(cost, this.burst);
    if (refilled + 1e-9 < need) {
      this.buckets.set(key, { tokens: refilled, at: t });
      return Math.max(1, Math.ceil(((need - refilled) * 60_000) / this.perMinute / 1000));
    }
    this.buckets.set(key, { tokens: refilled - need, at: t });
    // a full bucket is what a key without one gets: forget it, so the map holds only recent askers
    if (this.buckets.size > 10_000) this.forgetFull(t);
    return 0;
  }

  private forgetFull(t: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((t - b.at) * this.perMinute) / 60_000 >= this.burst) this.buckets.delete(key);
    }
  }
}

/** What a question costs; a follow-up fragment or a button costs FRAGMENT_COST. */
const QUESTION_COST = 1;
const FRAGMENT_COST = 0.5;
/** Up to this many words a typed turn is a follow-up fragment ("by month", "what about 2020?", "only arrests please"). */
const FRAGMENT_WORDS = 4;

/**
 * The cost of one turn, decided cheaply from what the inbox sees: a button
 * (a follow-up, a choice) or a short text of a few words is a fragment that
 * refines the answer before it; anything longer is a new question.
 */
export function turnCost(turn: { text?: string; click?: boolean }): number {
  if (turn.click) return FRAGMENT_COST;
  const words = (turn.text ?? '').trim().split(/\s+/).filter(Boolean).length;
  return words > 0 && words <= FRAGMENT_WORDS && (turn.text ?? '').length <= 60 ? FRAGMENT_COST : QUESTION_COST;
}
