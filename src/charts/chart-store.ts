// Chart PNGs served by the bot's own HTTP server under unguessable ids that
// expire: for the playground, and for Teams when an image is too large to
// inline. Bounded in count so a busy bot cannot grow without limit.
import { randomBytes } from 'node:crypto';

interface Entry {
  png: Buffer;
  expires: number;
}

export class ChartStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = 3_600_000,
    private readonly maxEntries = 500,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores a PNG; returns its id (128 random bits, hex). */
  put(png: Buffer): string {
    this.prune();
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const id = randomBytes(16).toString('hex');
    this.entries.set(id, { png, expires: this.now() + this.ttlMs });
    return id;
  }

  get(id: string): Buffer | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.expires <= this.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.png;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (e.expires <= now) this.entries.delete(id);
  }
}
