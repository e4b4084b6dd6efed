// Loads one batch of rows: COPY into a session-local staging table, then one
// INSERT ... ON CONFLICT into the target, all in one transaction. Duplicates of
// a key inside the batch are collapsed first (the latest wins), since a single
// INSERT may not touch the same row twice.
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { TableSpec } from './table-spec.js';

export interface BatchCounts {
  /** new rows */
  inserted: number;
  /** stored rows replaced by newer ones */
  updated: number;
  /** rows equal to (or older than) the stored ones, and in-batch duplicates that lost */
  unchanged: number;
}

export function addCounts(a: BatchCounts, b: BatchCounts): BatchCounts {
  return { inserted: a.inserted + b.inserted, updated: a.updated + b.updated, unchanged: a.unchanged + b.unchanged };
}

export const zeroCounts = (): BatchCounts => ({ inserted: 0, updated: 0, unchanged: 0 });

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

export class BatchUpserter {
  private readonly stage: string;
  private readonly upsertSql: string;

  constructor(
    private readonly client: pg.PoolClient | pg.Client,
    private readonly spec: TableSpec,
  ) {
    this.stage = ident(`${spec.table}_stage`);
    const cols = spec.columns.map(ident).join(', ');
    const key = spec.key.map(ident).join(', ');
    const sets = spec.columns
      .filter((c) => !spec.key.includes(c))
      .map((c) => `${ident(c)} = excluded.${ident(c)}`)
      .join(', ');
    this.upsertSql = `
      WITH batch AS (
        SELECT DISTINCT ON (${key}) ${cols} FROM ${this.stage}
        ORDER BY ${key}, ${spec.latestFirst}, _line DESC
      ), up AS (
        INSERT INTO ${ident(spec.table)} AS t (${cols}) SELECT ${cols} FROM batch
        ON CONFLICT (${key}) DO UPDATE SET ${sets} WHERE ${spec.replaceWhen}
        RETURNING (xmax = 0) AS inserted
      )
      SELECT (SELECT count(*) FROM ${this.stage}) AS staged,
             count(*) FILTER (WHERE inserted) AS inserted,
             count(*) FILTER (WHERE NOT inserted) AS updated
      FROM up`;
  }

  async prepare(): Promise<void> {
    await this.client.query(
      `CREATE TEMP TABLE IF NOT EXISTS ${this.stage} (LIKE ${ident(this.spec.table)} INCLUDING DEFAULTS, _line bigint)`,
    );
  }

  /**
   * Writes COPY text lines (the spec's columns, then the source line number) and
   * runs `alsoInTransaction` before committing, so that a caller can record its
   * progress atomically with the rows.
   */
  async write(lines: readonly string[], alsoInTransaction?: (client: pg.PoolClient | pg.Client) => Promise<void>): Promise<BatchCounts> {
    const cols = [...this.spec.columns.map(ident), '_line'].join(', ');
    await this.client.query('BEGIN');
    try {
      await this.client.query(`TRUNCATE ${this.stage}`);
      if (lines.length) {
        const copy = this.client.query(copyFrom(`COPY ${this.stage} (${cols}) FROM STDIN`));
        await pipeline(Readable.from(chunked(lines)), copy);
      }
      const { rows } = await this.client.query<{ staged: number; inserted: number; updated: number }>(this.upsertSql);
      await alsoInTransaction?.(this.client);
      await this.client.query('COMMIT');
      const { staged, inserted, updated } = rows[0];
      return { inserted, updated, unchanged: staged - inserted - updated };
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}

/** Groups lines into ~1 MB strings: far fewer stream writes than one per row. */
function* chunked(lines: readonly string[]): Generator<string> {
  let buffer = '';
  for (const line of lines) {
    buffer += line + '\n';
    if (buffer.length > 1 << 20) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer) yield buffer;
}
