// Who a worker process is, in a way the database can vouch for: a number from
// a sequence and a session advisory lock on it, held on a connection of its
// own. While the process lives the lock is held; when it dies (kill -9, a lost
// machine) PostgreSQL drops the connection and the lock with it, and other
// workers see at once that the questions it held need a new home.
import { bestEffort } from '../core/best-effort.js';
import type pg from 'pg';
import { dedicatedClient } from './dedicated-client.js';
import type { Logger } from '../core/logger.js';
import { WORKER_LOCK_CLASS } from './deliveries.js';

export class WorkerIdentity {
  private client?: pg.Client;
  private number?: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  /** This process's worker number; a new one after the database lost the old connection. */
  async current(): Promise<string> {
    if (this.client && this.number) return this.number;
    let client: pg.Client | undefined;
    const lost = (error: Error) => {
      if (!client || this.client !== client) return;
      this.logger.warn(`jobs: worker ${this.number} lost its database connection (${error.message}); it takes a new number`);
      this.client = undefined;
      this.number = undefined;
      void bestEffort(client.end(), 'closing the worker-identity connection');
    };
    client = await dedicatedClient(this.pool, lost);
    try {
      const { rows } = await client.query<{ n: string }>(`SELECT nextval('datadesk_app.worker_numbers')::text AS n`);
      await client.query('SELECT pg_advisory_lock($1, $2::int)', [WORKER_LOCK_CLASS, rows[0].n]);
      this.client = client;
      this.number = rows[0].n;
      return this.number;
    } catch (error) {
      await bestEffort(client.end(), 'closing the worker-identity connection');
      throw error;
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.number = undefined;
    // ending the session releases the lock
    if (client) await bestEffort(client.end(), 'closing the worker-identity connection');
  }

  /** For tests: die like a killed process (the lock goes with the connection). */
  kill(): void {
    void this.close();
  }
}
