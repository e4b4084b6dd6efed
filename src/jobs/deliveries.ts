// The deliveries table (migration 012): one row per question as a platform
// delivered it. Admitting a question is inserting its key, so the primary key
// makes duplicates impossible however they arrive; the row then follows the
// question through the workers (queued -> answering -> answered) and keeps
// what a retry needs to finish the same reply instead of starting another.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import { bestEffort } from '../core/best-effort.js';
import { JOB_EVENTS_CHANNEL } from './job-events.js';
import type { Queryable } from './queryable.js';

export interface NewDelivery {
  key: string;
  jobId: string;
  platform: string;
  /** the Slack workspace or Teams tenant it came from: its feedback and verified pairs stay there */
  workspace?: string;
  channel?: string;
  userId?: string;
  /** the question's words (feedback and verified pairs quote them) */
  question?: string;
}

export interface DeliveryRow {
  key: string;
  job_id: string;
  platform: string;
  workspace: string | null;
  channel: string | null;
  user_id: string | null;
  question: string | null;
  status: 'queued' | 'answering' | 'answered' | 'failed';
  worker_id: string | null;
  placeholder: Record<string, string> | null;
  steps: string[];
  answer: Answer | null;
  attempts: number;
  created_at: Date;
}

/** Concurrency a worker respects when it starts a question (fairness). */
export interface AnsweringLimits {
  perUser: number;
  perChannel: number;
}

/** What a worker may do with the job it fetched. */
export type TakeVerdict =
  | { go: true; delivery: DeliveryRow }
  /** answered already, or superseded by a newer job for the same key: nothing to do */
  | { go: false; why: 'done' | 'stale' | 'gone' }
  /** not now: the asker or the channel is at its limit, or a live worker has it; try again shortly */
  | { go: false; why: 'wait'; reason: string };

/** Advisory-lock keys (two-int form): [class, worker number] marks a live worker; [class, 0] serializes starts. */
export const WORKER_LOCK_CLASS = 7_322_010;
const START_LOCK = [7_322_011, 0];
/** A NOTIFY payload is at most 8,000 bytes; the channel's name and some room are kept aside. */
const MAX_NOTIFICATION_BYTES = 7_900;

/** The message is another delivery's placeholder already (a worker adopted it as a lost stream, answer-stream.ts). */
export class PlaceholderTakenError extends Error {
  constructor(key: string, placeholder: Record<string, string>) {
    super(`message ${placeholder.ts ?? placeholder.id} is another delivery's placeholder; ${key} cannot have it`);
  }
}

export class Deliveries {
  constructor(private readonly pool: pg.Pool) {}

  /** Inserts the key; false when it was taken (a duplicate delivery). Run it in the transaction that sends the job. */
  static async admit(tx: Queryable, d: NewDelivery): Promise<boolean> {
    const { rowCount } = await tx.query(
      `INSERT INTO deliveries (key, job_id, platform, workspace, channel, user_id, question) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO NOTHING`,
      [d.key, d.jobId, d.platform, d.workspace ?? null, d.channel ?? null, d.userId ?? null, d.question ?? null],
    );
    return rowCount === 1;
  }

  async get(key: string): Promise<DeliveryRow | undefined> {
    const { rows } = await this.pool.query<DeliveryRow>('SELECT * FROM deliveries WHERE key = $1', [key]);
    return rows[0];
  }

  /** The download token of a delivery's answer (made once: a retried card carries the same link). */
  async exportToken(key: string): Promise<string> {
    const { rows } = await this.pool.query<{ export_token: string }>(
      'UPDATE deliveries SET export_token = COALESCE(export_token, $2) WHERE key = $1 RETURNING export_token',
      [key, randomBytes(16).toString('hex')],
    );
    return rows[0].export_token;
  }

  async byExportToken(token: string): Promise<DeliveryRow | undefined> {
    const { rows } = await this.pool.query<DeliveryRow>('SELECT * FROM deliveries WHERE export_token = $1', [token]);
    return rows[0];
  }

  /** The delivery whose answer is in this message (the placeholder it replaced), if any. */
  async keyOfMessage(platform: string, workspace: string | undefined, channel: string, messageId: string): Promise<string | undefined> {
    // a reaction in one workspace never finds another's answer (a channel shared between two workspaces has both)
    const { rows } = await this.pool.query<{ key: string }>(
      `SELECT key FROM deliveries WHERE platform = $1 AND coalesce(workspace, '') = coalesce($4, '') AND channel = $2 AND (placeholder->>'ts' = $3 OR placeholder->>'id' = $3)`,
      [platform, channel, messageId, workspace ?? null],
    );
    return rows[0]?.key;
  }

  /**
   * Where this question is in line, in one read: how many are ahead of it (those admitted before it and still
   * waiting, and the asker's own earlier questions being answered: one asker's questions are answered one after
   * another, see take()), and whether a placeholder is recorded for it already (a fast worker's).
   */
  async placeInLine(key: string): Promise<{ ahead: number; placeholder: boolean }> {
    const { rows } = await this.pool.query<{ n: string; placeholder: boolean }>(
      `SELECT (SELECT count(*) FROM deliveries d
                WHERE d.created_at < me.created_at AND (d.status = 'queued' OR (d.status = 'answering' AND d.user_id = me.user_id))) AS n,
              me.placeholder IS NOT NULL AS placeholder
         FROM deliveries me WHERE me.key = $1`,
      [key],
    );
    return { ahead: Number(rows[0]?.n ?? 0), placeholder: rows[0]?.placeholder ?? false };
  }

  /**
   * Records the placeholder message unless one is recorded already; returns the
   * one that counts. The receiver and a fast worker may both post one: the
   * loser deletes its own.
   */
  async claimPlaceholder(key: string, placeholder: Record<string, string>): Promise<Record<string, string> | undefined> {
    try {
      const { rows } = await this.pool.query<{ placeholder: Record<string, string> }>(
        `UPDATE deliveries SET placeholder = COALESCE(placeholder, $2::jsonb) WHERE key = $1 RETURNING placeholder`,
        [key, JSON.stringify(placeholder)],
      );
      return rows[0]?.placeholder;
    } catch (error) {
      // migration 030: the message is another delivery's placeholder already
      if ((error as { code?: string }).code === '23505') throw new PlaceholderTakenError(key, placeholder);
      throw error;
    }
  }

  /** Which of these messages of a channel are some delivery's placeholder (claimed: not an orphan to adopt). */
  async placeholdersAmong(channel: string, messageIds: string[]): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ ts: string }>(
      `SELECT placeholder->>'ts' AS ts FROM deliveries WHERE channel = $1 AND placeholder->>'ts' = ANY($2::text[])`,
      [channel, messageIds],
    );
    return new Set(rows.map((r) => r.ts));
  }

  /**
   * The placeholder the receiver is about to record: a worker that took a
   * fresh question waits a moment for it rather than posting a second one.
   */
  async placeholderSoon(delivery: DeliveryRow, waitMs = 3_000): Promise<Record<string, string> | undefined> {
    if (delivery.placeholder) return delivery.placeholder;
    const until = delivery.created_at.getTime() + waitMs;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      const row = await this.get(delivery.key);
      if (row?.placeholder) return row.placeholder;
    }
    return undefined;
  }

  /**
   * Starts answering the job's question, under one lock so that two workers
   * never both pass the fairness limits or both take the same question. Every
   * start waits for that lock, so it is held for one round trip: the lock and
   * the row with what the limits need go in one simple query (each statement
   * of it has its own snapshot, taken once the lock is held; the key is a
   * quoted literal, as simple queries take no parameters), and the update with
   * the commit in another.
   *
   * The limits' counts read deliveries_waiting with plain index scans (bitmap scans off for this transaction):
   * every question leaves two dead entries there (its queued and answering versions) until a vacuum, and a bitmap
   * scan visits each one's heap row again on every start, while a plain index scan marks the dead ones and skips
   * them afterwards, for these counts and for placeInLine's. With 40,000 dead entries (20,000 questions since the
   * last vacuum) placeInLine's read took 2.9 ms and these two counts 14-25 ms, under the lock every start
   * waits for; once a plain scan had marked them, 0.05 ms. (While a transaction older than the dead rows runs
   * anywhere in the cluster, a long ingest, nothing can mark them: both plans then visit every one.)
   */
  async take(key: string, jobId: string, worker: string, limits: AnsweringLimits): Promise<TakeVerdict> {
    const client = await this.pool.connect();
    try {
      const quotedKey = client.escapeLiteral(key);
      const [, , , found] = (await client.query(
        `BEGIN; SET LOCAL enable_bitmapscan = off; SELECT pg_advisory_xact_lock(${START_LOCK[0]}, ${START_LOCK[1]});
         ${rowToTake(quotedKey, client.escapeLiteral(worker))}`,
      )) as unknown as pg.QueryResult<RowToTake>[];
      const verdict = verdictOn(found.rows[0], jobId, limits);
      if (!verdict.go) {
        await client.query('COMMIT');
        return verdict;
      }
      const [taken] = (await client.query(
        `UPDATE deliveries SET status = 'answering', worker_id = ${client.escapeLiteral(worker)}::bigint, started_at = now(),
                attempts = attempts + 1 WHERE key = ${quotedKey} RETURNING *; COMMIT`,
      )) as unknown as pg.QueryResult<DeliveryRow>[];
      return { go: true, delivery: taken.rows[0] };
    } catch (error) {
      await bestEffort(client.query('ROLLBACK'), 'ROLLBACK after a failed take');
      throw error;
    } finally {
      client.release();
    }
  }

  /** The answer, kept before it is posted: a retry posts the same answer rather than computing another. */
  async saveAnswer(key: string, answer: Answer): Promise<void> {
    await this.pool.query('UPDATE deliveries SET answer = $2 WHERE key = $1', [key, JSON.stringify(answer)]);
  }

  async recordStep(key: string, step: string): Promise<void> {
    await this.pool.query('UPDATE deliveries SET steps = array_append(steps, $2) WHERE key = $1 AND NOT ($2 = ANY(steps))', [key, step]);
  }

  /**
   * Claims an export of this answer for this person: false when they asked for one in the last `withinS`
   * seconds (a double click, or Slack's retry of it), in any process. One UPDATE: the row lock makes two
   * claims at once one claim.
   */
  async claimExport(key: string, user: string, withinS = 30): Promise<boolean> {
    const now = Math.floor(Date.now() / 1000);
    const { rowCount } = await this.pool.query(
      `UPDATE deliveries SET steps = array_append(steps, $2) WHERE key = $1 AND NOT EXISTS (
         SELECT 1 FROM unnest(steps) s WHERE s LIKE $3 AND split_part(s, ':', 3)::bigint > $4)`,
      [key, `export:${user.replace(/:/g, '_')}:${now}`, `export:${user.replace(/:/g, '_')}:%`, now - withinS],
    );
    return rowCount === 1;
  }

  /**
   * Ends the question (keeping `answer` on the row too, when given); a receiver waiting for it (the playground's,
   * job-events.ts) is told in the same statement, at commit, with the answer itself when it fits in a notification
   * (most do: 2.5-4.5 KB), so that it need not read the row.
   */
  async finish(key: string, status: 'answered' | 'failed', answer?: Answer): Promise<void> {
    const kept = answer === undefined ? null : JSON.stringify(answer);
    const withAnswer = kept === null ? undefined : `{"key":${JSON.stringify(key)},"done":true,"answer":${kept}}`;
    const told = withAnswer && Buffer.byteLength(withAnswer) <= MAX_NOTIFICATION_BYTES ? withAnswer : JSON.stringify({ key, done: true });
    await this.pool.query(
      `WITH ended AS (UPDATE deliveries SET status = $2, finished_at = now(), answer = coalesce($4::jsonb, answer) WHERE key = $1 RETURNING key)
       SELECT pg_notify($3, $5) FROM ended`,
      [key, status, JOB_EVENTS_CHANNEL, kept, told],
    );
  }

  /** Gives a question back to the queue after this worker's attempt failed (the job's retry takes it up). */
  async release(key: string, worker: string): Promise<void> {
    await this.pool.query(
      `UPDATE deliveries SET status = 'queued', worker_id = NULL WHERE key = $1 AND worker_id = $2 AND status = 'answering'`,
      [key, worker],
    );
  }

  /** Points the question at a newer job (a deferral). */
  static async moveToJob(tx: Queryable, key: string, jobId: string): Promise<void> {
    await tx.query(`UPDATE deliveries SET job_id = $2 WHERE key = $1`, [key, jobId]);
  }

  /** Workers that hold questions in 'answering' other than this one. */
  async answeringWorkers(except: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ worker_id: string }>(
      `SELECT DISTINCT worker_id FROM deliveries WHERE status = 'answering' AND worker_id IS NOT NULL AND worker_id <> $1`,
      [except],
    );
    return rows.map((r) => r.worker_id);
  }

  /** Deletes finished deliveries older than the platforms' retry windows. */
  async prune(olderThanHours = 72): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM deliveries WHERE status IN ('answered', 'failed') AND created_at < now() - make_interval(hours => $1)`,
      [olderThanHours],
    );
    return rowCount ?? 0;
  }
}

type RowToTake = DeliveryRow & { by_user: string; by_channel: string; held_by_live_worker: boolean };

/**
 * The row to take (locked), the questions being answered for its asker and in its channel, and whether another
 * worker that holds it is alive (see isAlive: a live worker's session holds its advisory lock).
 */
const rowToTake = (quotedKey: string, quotedWorker: string) => `
  SELECT d.*,
         (SELECT count(*) FROM deliveries x WHERE x.status = 'answering' AND x.key <> d.key AND x.user_id = d.user_id) AS by_user,
         (SELECT count(*) FROM deliveries x WHERE x.status = 'answering' AND x.key <> d.key AND x.channel = d.channel) AS by_channel,
         CASE WHEN d.status = 'answering' AND d.worker_id IS NOT NULL AND d.worker_id <> ${quotedWorker}::bigint
              THEN NOT pg_try_advisory_xact_lock(${WORKER_LOCK_CLASS}, d.worker_id::int) ELSE false END AS held_by_live_worker
    FROM deliveries d WHERE d.key = ${quotedKey} FOR UPDATE OF d`;

function verdictOn(d: RowToTake | undefined, jobId: string, limits: AnsweringLimits): TakeVerdict | { go: true } {
  if (!d) return { go: false, why: 'gone' };
  if (d.job_id !== jobId) return { go: false, why: 'stale' };
  if (d.status === 'answered' || d.status === 'failed') return { go: false, why: 'done' };
  if (d.held_by_live_worker) return { go: false, why: 'wait', reason: `worker ${d.worker_id} is answering it` };
  if (d.user_id && Number(d.by_user) >= limits.perUser)
    return { go: false, why: 'wait', reason: 'the asker has a question being answered' };
  if (d.channel && Number(d.by_channel) >= limits.perChannel) return { go: false, why: 'wait', reason: 'the channel is at its limit' };
  return { go: true };
}

/** A worker is alive while its session holds its advisory lock; a crashed worker's lock went with its connection. */
export async function isAlive(tx: Queryable, worker: string | null): Promise<boolean> {
  if (!worker) return false;
  // a transaction-level try: it cannot be granted while the worker's session holds the lock, and it ends with the transaction
  const { rows } = await tx.query<{ free: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2::int) AS free', [WORKER_LOCK_CLASS, worker]);
  return !rows[0].free;
}
