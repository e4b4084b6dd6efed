// A connection of its own, outside the pool, with the pool's settings: for
// what holds a session for the life of the process (a worker's advisory lock,
// LISTEN), so that it never takes a slot the queries need.
import pg from 'pg';

export async function dedicatedClient(pool: pg.Pool, onError: (error: Error) => void): Promise<pg.Client> {
  const client = new pg.Client({ ...pool.options, application_name: 'datadesk-jobs' });
  client.on('error', onError);
  await client.connect();
  return client;
}
