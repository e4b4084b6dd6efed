// Chart PNGs served by the bot's own HTTP server under unguessable ids that
// expire: for the playground, and for Teams when an image is too large to
// inline. Kept in PostgreSQL (table chart_images) when given a pool, so the
// worker that drew a chart and the receiver that serves it need not be one
// process, and a restart keeps them; a copy stays in memory until the row is
// written, so the id can be handed out at once. Without a pool (tests, one
// process), memory only, bounded in count.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../core/logger.js';
import { describeError } from '../core/errors.js';

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
    private readonly db?: { pool: pg.Pool; logger: Logger },
  ) {}

  /** A store in the app's database; a week, so that saved playground threads and older Teams cards keep their charts across restarts. */
  static inDatabase(pool: pg.Pool, logger: Logger, ttlMs = 7 * 24 * 3_600_000): ChartStore {
    return new ChartStore(ttlMs, 500, Date.now, { pool, logger });
  }

  /** Stores a PNG; returns its id (128 random bits, hex). */
  put(png: Buffer): string {
    this.prune();
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const id = randomBytes(16).toString('hex');
    const expires = this.now() + this.ttlMs;
    this.entries.set(id, { png, expires });
    if (this.db) {
      const { pool, logger } = this.db;
      pool
        .query('INSERT INTO chart_images (id, png, expires_at) VALUES ($1, $2, $3)', [id, png, new Date(expires)])
        .then(() => this.entries.delete(id))
        .then(() => pool.query('DELETE FROM chart_images WHERE expires_at < now()'))
        .catch((error) => logger.warn(`charts: could not keep chart ${id} in the database: ${describeError(error)}`));
    }
    return id;
  }

  async get(id: string): Promise<Buffer | undefined> {
    const entry = this.entries.get(id);
    if (entry && entry.expires > this.now()) return entry.png;
    this.entries.delete(id);
    if (!this.db) return undefined;
    const { rows } = await this.db.pool.query<{ png: Buffer }>('SELECT png FROM chart_images WHERE id = $1 AND expires_at > now()', [id]);
    return rows[0]?.png;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (e.expires <= now) this.entries.delete(id);
  }
}
