// Every load leaves a row in ingest_runs: when, what, the counts and how it
// ended, so "when was the data last refreshed, and did it work" has an answer.
import type pg from 'pg';
import type { BatchCounts } from './upsert-batch.js';

export async function recordRun<T extends BatchCounts & { rejected: number }>(
  pool: pg.Pool,
  source: string,
  run: () => Promise<T>,
): Promise<T> {
  const { rows } = await pool.query<{ id: number }>('INSERT INTO ingest_runs (source) VALUES ($1) RETURNING id', [source]);
  const id = rows[0].id;
  try {
    const result = await run();
    await pool.query(
      `UPDATE ingest_runs SET finished_at = now(), status = 'done', loaded = $2, updated = $3, unchanged = $4, rejected = $5 WHERE id = $1`,
      [id, result.inserted, result.updated, result.unchanged, result.rejected],
    );
    return result;
  } catch (error) {
    await pool
      .query(`UPDATE ingest_runs SET finished_at = now(), status = 'failed', detail = $2 WHERE id = $1`, [id, (error as Error).message])
      .catch(() => undefined);
    throw error;
  }
}
