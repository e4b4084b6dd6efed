// Chart PNGs served by the bot's own HTTP server under unguessable ids that
// expire: for the playground, and for Teams when an image is too large to
// inline. Kept in PostgreSQL (table chart_images) when given a pool, so the
// worker that drew a chart and the receiver that serves it need not be one
// process, and a restart keeps them; a copy stays in memory until the row is
// written, so the id can be handed out at once. Without a pool (tests, one
// process), memory only, bounded in count.
//
// A chart may also be put undrawn (putLater): its id stands for the spec and
// a layout, drawn when first fetched, so an answer pays for the layouts its
// page actually shows and nothing for those it never does. Drawings are
// shared by content: the same spec in the same layout is drawn once per process.
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { ChartSpec } from '../core/answer.js';
import type { Logger } from '../core/logger.js';
import { describeError } from '../core/errors.js';
import type { ChartStyle } from './chartjs-config.js';
import { renderChart } from './render.js';

/** What an undrawn chart is: its spec and the layout to draw it in. */
interface Recipe {
  spec: ChartSpec;
  style: ChartStyle;
}

interface Entry {
  png?: Buffer;
  recipe?: Recipe;
  expires: number;
}

type Draw = (spec: ChartSpec, style: ChartStyle) => Promise<Buffer>;

/** An undrawn chart whose drawing failed when it was fetched (QuickChart down, ...): not an expired one. */
export class ChartDrawError extends Error {}

/**
 * In chart_images.png an undrawn chart's row holds its recipe as JSON (it starts with "{"; a PNG starts with
 * 0x89), replaced by the PNG once drawn: any process serving the id can draw it, with no second table.
 */
const isRecipe = (bytes: Buffer) => bytes[0] === 0x7b;

/** Drawings kept by content in a process: a busy hour's distinct charts, a few MB. */
const DRAWINGS_KEPT = 200;
/** Expired rows are deleted at most this often (not on every put: a put is on the answer's path). */
const PRUNE_EVERY_MS = 60_000;

export class ChartStore {
  private readonly entries = new Map<string, Entry>();
  private readonly drawings = new Map<string, Promise<Buffer>>();
  private lastPrune = 0;

  constructor(
    private readonly ttlMs = 3_600_000,
    private readonly maxEntries = 500,
    private readonly now: () => number = Date.now,
    private readonly db?: { pool: pg.Pool; logger: Logger },
    private readonly draw: Draw = (spec, style) => renderChart(spec, undefined, style),
  ) {}

  /**
   * A store in the app's database; a week, so that saved playground threads and older Teams cards keep their
   * charts across restarts. Undrawn charts are drawn by QuickChart when its URL is given, locally otherwise.
   */
  static inDatabase(pool: pg.Pool, logger: Logger, o: { quickchartUrl?: string; ttlMs?: number } = {}): ChartStore {
    return new ChartStore(o.ttlMs ?? 7 * 24 * 3_600_000, 500, Date.now, { pool, logger }, (spec, style) =>
      renderChart(spec, o.quickchartUrl, style),
    );
  }

  /** Stores a PNG; returns its id (128 random bits, hex). */
  put(png: Buffer): string {
    return this.keep([{ png }])[0];
  }

  /** Ids for a chart in each of these layouts, drawn only when (and if) each is fetched. */
  putLater(spec: ChartSpec, styles: ChartStyle[]): string[] {
    return this.keep(styles.map((style) => ({ recipe: { spec, style } })));
  }

  async get(id: string): Promise<Buffer | undefined> {
    const entry = this.entries.get(id);
    if (entry && entry.expires > this.now()) {
      if (entry.png) return entry.png;
      if (entry.recipe) {
        const png = await this.drawn(entry.recipe);
        entry.png = png;
        // while its row is being written, the write saves the drawing after it (keep); once written, here
        if (this.entries.get(id) !== entry) this.saveDrawing(id, png);
        return png;
      }
    }
    this.entries.delete(id);
    if (!this.db) return undefined;
    const { rows } = await this.db.pool.query<{ png: Buffer }>('SELECT png FROM chart_images WHERE id = $1 AND expires_at > now()', [id]);
    const bytes = rows[0]?.png;
    if (!bytes || !isRecipe(bytes)) return bytes;
    const png = await this.drawn(JSON.parse(bytes.toString('utf8')) as Recipe);
    this.saveDrawing(id, png);
    return png;
  }

  /** Keeps entries (in memory, and in one insert in the database); their ids. */
  private keep(made: { png?: Buffer; recipe?: Recipe }[]): string[] {
    this.prune();
    const expires = this.now() + this.ttlMs;
    const ids = made.map((m) => {
      while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      const id = randomBytes(16).toString('hex');
      this.entries.set(id, { ...m, expires });
      return id;
    });
    if (this.db && ids.length) {
      const { pool, logger } = this.db;
      const values = ids.map((_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3})`).join(', ');
      const params = ids.flatMap((id, i) => [id, made[i].png ?? Buffer.from(JSON.stringify(made[i].recipe)), new Date(expires)]);
      pool
        .query(`INSERT INTO chart_images (id, png, expires_at) VALUES ${values}`, params)
        // the row serves it from now on; a chart drawn before its row was written is saved over its recipe now
        .then(() =>
          ids.forEach((id, i) => {
            const drawnMeanwhile = made[i].recipe && this.entries.get(id)?.png;
            if (drawnMeanwhile) this.saveDrawing(id, drawnMeanwhile);
            this.entries.delete(id);
          }),
        )
        .then(() => this.pruneDatabase())
        .catch((error) => logger.warn(`charts: could not keep chart ${ids.join(', ')} in the database: ${describeError(error)}`));
    }
    return ids;
  }

  /** The drawing of a recipe, shared by every id with the same content. */
  private drawn(recipe: Recipe): Promise<Buffer> {
    const key = createHash('sha256').update(JSON.stringify(recipe)).digest('hex');
    let drawing = this.drawings.get(key);
    if (!drawing) {
      drawing = this.draw(recipe.spec, recipe.style).catch((error: unknown) => {
        this.drawings.delete(key);
        throw new ChartDrawError(`The chart could not be drawn: ${describeError(error)}`);
      });
      while (this.drawings.size >= DRAWINGS_KEPT) this.drawings.delete(this.drawings.keys().next().value!);
      this.drawings.set(key, drawing);
    }
    return drawing;
  }

  /** A drawing replaces its recipe in the database, so that no process draws it again. */
  private saveDrawing(id: string, png: Buffer): void {
    if (!this.db) return;
    const { pool, logger } = this.db;
    pool
      .query('UPDATE chart_images SET png = $2 WHERE id = $1', [id, png])
      .catch((error) => logger.warn(`charts: could not keep the drawing of chart ${id}: ${describeError(error)}`));
  }

  private pruneDatabase(): Promise<unknown> | undefined {
    if (!this.db || this.now() - this.lastPrune < PRUNE_EVERY_MS) return undefined;
    this.lastPrune = this.now();
    return this.db.pool.query('DELETE FROM chart_images WHERE expires_at < now()');
  }

  private prune(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (e.expires <= now) this.entries.delete(id);
  }
}
