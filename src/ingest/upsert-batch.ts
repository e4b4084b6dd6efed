// Loads rows in two steps: COPY into a session-local staging table (stage(),
// as many times as the caller likes), then one set-based merge of everything
// staged into the target (merge()), in one transaction: a plain INSERT of the
// keys not stored yet and an INSERT ... ON CONFLICT of the stored ones into the
// target and, when the target has derived tables (crimes' rollups), one
// aggregate merge into each. Duplicates of a key among the
// staged rows are collapsed first (the latest wins), since a single INSERT may
// not touch the same row twice.
import { bestEffort } from '../core/best-effort.js';
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

/** Staged source lines, by their line numbers (inclusive): a part of the staged rows merged alone. */
export interface LineRange {
  from: number;
  to: number;
}

type Client = pg.PoolClient | pg.Client;

export class BatchUpserter {
  private readonly stageTable: string;
  private readonly deltaTable: string;
  /** how many leading COPY values make the key (0: the key is not a prefix, always collapse duplicates) */
  private readonly keyFields: number;
  private staged = 0;
  private readonly keysSeen = new Set<string>();
  private duplicates = false;
  /** the triggers a merge bypasses (they keep the derived tables on other writes) */
  private triggers: string[] = [];

  constructor(
    private readonly client: Client,
    private readonly spec: TableSpec,
  ) {
    this.stageTable = ident(`${spec.table}_stage`);
    this.deltaTable = ident(`${spec.table}_delta`);
    const prefix = spec.key.every((k, i) => spec.columns[i] === k);
    this.keyFields = prefix ? spec.key.length : 0;
  }

  async prepare(): Promise<void> {
    const table = ident(this.spec.table);
    await this.client.query(`CREATE TEMP TABLE IF NOT EXISTS ${this.stageTable} (LIKE ${table} INCLUDING DEFAULTS, _line bigint)`);
    await this.clear(); // a pooled session may keep the rows of a load that failed
    const derived = this.spec.derived;
    if (!derived) return;
    await this.client.query(
      `CREATE TEMP TABLE IF NOT EXISTS ${this.deltaTable} AS SELECT 1 AS sign, ${derived.columns.map(ident).join(', ')} FROM ${table} WITH NO DATA`,
    );
    const { rows } = await this.client.query<{ name: string }>(
      `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = $1::regclass AND tgfoid = $2::regproc AND NOT tgisinternal ORDER BY tgname`,
      [this.spec.table, derived.triggerFunction],
    );
    this.triggers = rows.map((r) => r.name);
  }

  /** Rows staged and not merged yet. */
  get stagedRows(): number {
    return this.staged;
  }

  /**
   * COPYs lines (the spec's columns, then the source line number) into the staging table,
   * outside any transaction: a refused COPY leaves nothing, and staged rows stay until merged.
   * `text` lines are COPY text format; `csv` lines are CSV records in the columns' order whose
   * leading key fields are not quoted, and whose dates are month first (the portal's
   * 03/18/2015 07:44:00 PM).
   */
  async stage(lines: readonly string[], format: 'text' | 'csv' = 'text'): Promise<void> {
    if (!lines.length) return;
    const cols = [...this.spec.columns.map(ident), '_line'].join(', ');
    if (format === 'csv') await this.client.query(`SET DateStyle = 'ISO, MDY'`);
    try {
      const copy = this.client.query(copyFrom(`COPY ${this.stageTable} (${cols}) FROM STDIN${format === 'csv' ? ' (FORMAT csv)' : ''}`));
      await pipeline(Readable.from(chunked(lines)), copy);
    } finally {
      if (format === 'csv') await this.client.query('RESET DateStyle');
    }
    this.staged += lines.length;
    if (this.duplicates) return;
    if (this.keyFields === 0) {
      this.duplicates = true;
      return;
    }
    const separator = format === 'csv' ? ',' : '\t';
    for (const line of lines) {
      const key = leadingFields(line, this.keyFields, separator);
      if (this.keysSeen.has(key)) {
        this.duplicates = true;
        this.keysSeen.clear();
        return;
      }
      this.keysSeen.add(key);
    }
  }

  /** Empties the staging table (after a merge, or to start over). */
  async clear(): Promise<void> {
    await this.client.query(`TRUNCATE ${this.stageTable}`);
    this.staged = 0;
    this.keysSeen.clear();
    this.duplicates = false;
  }

  /** How many staged rows are in `range`, and the line of the first. */
  async stagedIn(range: LineRange): Promise<{ rows: number; first: number | null }> {
    const { rows } = await this.client.query<{ rows: number; first: string | null }>(
      `SELECT count(*)::int AS rows, min(_line)::text AS first FROM ${this.stageTable} WHERE _line BETWEEN $1 AND $2`,
      [range.from, range.to],
    );
    return { rows: rows[0].rows, first: rows[0].first === null ? null : Number(rows[0].first) };
  }

  /**
   * Merges the staged rows (or those of `range`) into the target and its derived tables in one
   * transaction, and runs `alsoInTransaction` before committing, so that a caller can record its
   * progress atomically with the rows. The staging table keeps its rows (clear() empties it).
   */
  async merge(alsoInTransaction?: (client: Client) => Promise<void>, range?: LineRange): Promise<BatchCounts> {
    const c = this.client;
    const derived = this.spec.derived;
    await c.query('BEGIN');
    try {
      // the batch's aggregates and the staged rows' sort fit in memory instead of spilling to disk
      await c.query(`SET LOCAL work_mem = '64MB'`);
      // Other writers wait for this transaction (SHARE ROW EXCLUSIVE: readers go on, reading the
      // last committed rows): the keys the merge finds stored stay stored, the new ones new, and
      // the rows it replaces are the ones it read.
      await c.query(`LOCK TABLE ${ident(this.spec.table)} IN SHARE ROW EXCLUSIVE MODE`);
      if (derived) await this.bypassTriggers();
      const params = range ? [range.from, range.to] : [];
      const { rows } = await c.query<{ staged: number; inserted: number; updated: number }>(
        this.upsertSql(range === undefined && !this.duplicates, range, await this.allNew(range, params)),
        params,
      );
      if (derived) {
        for (const { tables, sql } of await derived.merges(c, this.deltaTable)) {
          const { rows: merged } = await c.query<Record<string, string | null>>(sql);
          for (const [i, table] of tables.entries()) {
            const emptied = merged[0][`e${i}`];
            if (emptied) await c.query(`DELETE FROM public.${ident(table)} WHERE ctid = ANY($1::tid[])`, [emptied]);
          }
        }
        if (this.triggers.length) await c.query(`ALTER TABLE ${ident(this.spec.table)} ${this.triggerAction('ENABLE')}`);
      }
      await alsoInTransaction?.(c);
      await c.query('COMMIT');
      const { staged, inserted, updated } = rows[0];
      return { inserted, updated, unchanged: staged - inserted - updated };
    } catch (error) {
      await bestEffort(c.query('ROLLBACK'), 'rolling back a failed merge');
      throw error;
    }
  }

  /** Stages `lines` alone and merges them (a sync's page): the staging table is empty again after. */
  async write(lines: readonly string[], alsoInTransaction?: (client: Client) => Promise<void>): Promise<BatchCounts> {
    await this.clear();
    try {
      await this.stage(lines);
      return await this.merge(alsoInTransaction);
    } finally {
      await bestEffort(this.clear(), 'clearing the staging table');
    }
  }

  /**
   * The triggers are off for this transaction only (DDL is transactional: no one else sees them
   * off, and a cut or a rollback turns them back on); readers see the last committed rollups.
   */
  private async bypassTriggers(): Promise<void> {
    const table = ident(this.spec.table);
    if (this.triggers.length) await this.client.query(`ALTER TABLE ${table} ${this.triggerAction('DISABLE')}`);
    await this.client.query(`TRUNCATE ${this.deltaTable}`);
  }

  private triggerAction(action: 'ENABLE' | 'DISABLE'): string {
    return this.triggers.map((t) => `${action} TRIGGER ${ident(t)}`).join(', ');
  }

  /**
   * Whether no stored key lies between the smallest and the largest staged one (a first load, or
   * rows appended past the stored ones): then every staged key is new, and the merge inserts
   * without looking each one up. Only for a one-column key.
   */
  private async allNew(range: LineRange | undefined, params: number[]): Promise<boolean> {
    if (this.spec.key.length !== 1) return false;
    const key = ident(this.spec.key[0]);
    const where = range ? 'WHERE _line BETWEEN $1 AND $2' : '';
    const { rows } = await this.client.query<{ stored: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${ident(this.spec.table)} WHERE ${key} BETWEEN b.low AND b.high) AS stored
       FROM (SELECT min(${key}) AS low, max(${key}) AS high FROM ${this.stageTable} ${where}) b`,
      params,
    );
    return !rows[0].stored;
  }

  private upsertSql(unique: boolean, range: LineRange | undefined, allNew: boolean): string {
    const { spec } = this;
    const target = ident(spec.table);
    const cols = spec.columns.map(ident).join(', ');
    const key = spec.key.map(ident).join(', ');
    const sets = spec.columns
      .filter((c) => !spec.key.includes(c))
      .map((c) => `${ident(c)} = excluded.${ident(c)}`)
      .join(', ');
    const where = range ? 'WHERE _line BETWEEN $1 AND $2' : '';
    // a unique batch is read from the staging table by each of the two inserts; a collapsed one is sorted once
    const batch = unique
      ? `batch AS NOT MATERIALIZED (SELECT ${cols} FROM ${this.stageTable} ${where})`
      : `batch AS (SELECT DISTINCT ON (${key}) ${cols} FROM ${this.stageTable} ${where} ORDER BY ${key}, ${spec.latestFirst}, _line DESC)`;
    const stored = `EXISTS (SELECT 1 FROM ${target} s WHERE ${spec.key.map((k) => `s.${ident(k)} = b.${ident(k)}`).join(' AND ')})`;
    const derived = spec.derived;
    const counted = derived ? derived.columns.map(ident).join(', ') : '';
    // with derived tables: the new versions (+1) and the rows they replaced (-1, read in the
    // statement's snapshot, from before the upsert) go to the delta table
    const delta = derived
      ? `, old AS (
          SELECT ${counted} FROM ${target} WHERE (${key}) IN (SELECT ${key} FROM up WHERE NOT inserted)
        ), delta AS (
          INSERT INTO ${this.deltaTable} (sign, ${counted})
          SELECT 1, ${counted} FROM fresh UNION ALL SELECT 1, ${counted} FROM up UNION ALL SELECT -1, ${counted} FROM old
        )`
      : '';
    // Keys not stored yet go in with a plain INSERT (no speculative insertion and conflict check
    // per row, which cost a third more); stored ones through the upsert. Both see the statement's
    // snapshot, so the two sets are disjoint, and the merge's lock keeps other writers out.
    return `
      WITH ${batch}, fresh AS (
        INSERT INTO ${target} (${cols}) SELECT ${cols} FROM batch b ${allNew ? '' : `WHERE NOT ${stored}`}
        RETURNING ${derived ? counted : '1'}
      ), up AS (
        INSERT INTO ${target} AS t (${cols}) SELECT ${cols} FROM batch b WHERE ${allNew ? 'false' : stored}
        ON CONFLICT (${key}) DO UPDATE SET ${sets} WHERE ${spec.replaceWhen}
        RETURNING (xmax = 0) AS inserted${derived ? `, ${[...new Set([...spec.key, ...derived.columns])].map(ident).join(', ')}` : ''}
      )${delta}
      SELECT ${range ? `(SELECT count(*) FROM ${this.stageTable} ${where})::int` : this.staged} AS staged,
             ((SELECT count(*) FROM fresh) + count(*) FILTER (WHERE inserted))::int AS inserted,
             (count(*) FILTER (WHERE NOT inserted))::int AS updated
      FROM up`;
  }
}

/** The first `n` values of a line, as one string. */
function leadingFields(line: string, n: number, separator: string): string {
  let end = -1;
  for (let i = 0; i < n; i++) {
    end = line.indexOf(separator, end + 1);
    if (end < 0) return line;
  }
  return line.slice(0, end);
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
