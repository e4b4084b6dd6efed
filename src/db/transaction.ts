// One transaction on one pooled connection: BEGIN, the work, COMMIT; ROLLBACK
// and the error when the work throws. The connection goes back to the pool
// either way.
import type pg from 'pg';
import { bestEffort } from '../core/best-effort.js';

export async function inTransaction<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await bestEffort(client.query('ROLLBACK'), 'ROLLBACK after a failed transaction');
    throw error;
  } finally {
    client.release();
  }
}
