// Every load leaves a row in ingest_runs: when, what, the counts and how it
// ended, so "when was the data last refreshed, and did it work" has an answer.
//
// A process that is killed cannot write "failed", so while a run is `running`
// its process holds a session-level advisory lock keyed by the run id, on a
// connection of its own. PostgreSQL releases the lock when that session ends,
// however the process ended; markInterruptedRuns (called when ingest or serve
// starts) then finds `running` rows whose lock nobody holds and marks them
// failed.
import type pg from 'pg';
import type { BatchCounts } from './upsert-batch.js';
import { bestEffort } from '../core/best-effort.js';

/**
 * The two-key form pg_advisory_lock(class, key) has its own key space, apart
 * from the one-key locks of migrations and the digest scheduler. Ids are
 * bigints; the key wraps after 2^31 runs.
 */
export const RUN_LOCK_CLASS = 7_322_011;
const RUN_LOCK = `${RUN_LOCK_CLASS}, ($1::bigint % 2147483647)::int`;

export const INTERRUPTED = 'interrupted: the process stopped before finishing';

export async function recordRun<T extends BatchCounts & { rejected: number }>(
  pool: pg.Pool,
  source: string,
  run: () => Promise<T>,
): Promise<T> {
  const holder = await pool.connect();
  // a dropped lock connection must not crash the load: the run goes on, and only looks interrupted to others
  const ignore = () => undefined;
  holder.on('error', ignore);
  let id: number;
  try {
    // row and lock in one transaction: nobody can see the row `running` without its lock held
    await holder.query('BEGIN');
    const { rows } = await holder.query<{ id: number }>('INSERT INTO ingest_runs (source) VALUES ($1) RETURNING id', [source]);
    id = rows[0].id;
    await holder.query(`SELECT pg_advisory_lock(${RUN_LOCK})`, [id]);
    await holder.query('COMMIT');
  } catch (error) {
    holder.off('error', ignore);
    holder.release(error as Error);
    throw error;
  }
  try {
    const result = await run();
    await pool.query(
      `UPDATE ingest_runs SET finished_at = now(), status = 'done', loaded = $2, updated = $3, unchanged = $4, rejected = $5 WHERE id = $1`,
      [id, result.inserted, result.updated, result.unchanged, result.rejected],
    );
    return result;
  } catch (error) {
    await bestEffort(
      pool.query(`UPDATE ingest_runs SET finished_at = now(), status = 'failed', detail = $2 WHERE id = $1`, [
        id,
        (error as Error).message,
      ]),
      'recording the failed ingest run',
    );
    throw error;
  } finally {
    // the outcome is written before the lock goes, so a run is never both unlocked and `running` while alive
    let broken: Error | undefined;
    await holder.query(`SELECT pg_advisory_unlock(${RUN_LOCK})`, [id]).catch((e: Error) => (broken = e));
    holder.off('error', ignore);
    holder.release(broken);
  }
}

/**
 * Marks as failed every `running` run whose process is gone (its lock is free),
 * and returns how many. finished_at stays empty: when it stopped is unknown.
 */
export async function markInterruptedRuns(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM ingest_runs WHERE status = 'running' ORDER BY id`);
    let marked = 0;
    for (const { id } of rows) {
      const { rows: got } = await client.query<{ free: boolean }>(`SELECT pg_try_advisory_lock(${RUN_LOCK}) AS free`, [id]);
      if (!got[0].free) continue; // its process is still loading
      try {
        const r = await client.query(
          `UPDATE ingest_runs SET status = 'failed', detail = $2 || ' (found at ' || to_char(now(), 'YYYY-MM-DD HH24:MI:SS TZ') || ')'
           WHERE id = $1 AND status = 'running'`,
          [id, INTERRUPTED],
        );
        marked += r.rowCount ?? 0;
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${RUN_LOCK})`, [id]);
      }
    }
    return marked;
  } finally {
    client.release();
  }
}
