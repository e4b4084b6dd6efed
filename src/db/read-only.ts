// Where agent SQL runs: a READ ONLY transaction, as the datadesk_reader role,
// with a statement timeout. Any of the three alone refuses a write; together
// they also bound how long a query may hold a connection.
import type pg from 'pg';

export interface ReadOnlyOptions {
  statementTimeoutMs: number;
}

export class QueryTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The query took longer than ${timeoutMs < 10_000 ? (timeoutMs / 1000).toFixed(1) : Math.round(timeoutMs / 1000)} s and was stopped`);
    this.name = 'QueryTimeoutError';
  }
}

export async function withReadOnly<T>(
  pool: pg.Pool,
  options: ReadOnlyOptions,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN TRANSACTION READ ONLY');
    await client.query('SET LOCAL ROLE datadesk_reader');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(options.statementTimeoutMs))}`);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if ((error as { code?: string }).code === '57014') throw new QueryTimeoutError(options.statementTimeoutMs);
    throw error;
  } finally {
    client.release();
  }
}
