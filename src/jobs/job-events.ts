// Progress and completion of jobs, for a receiver that waits on its asker
// (the playground holds an HTTP stream open). Workers NOTIFY on a channel;
// each receiving process LISTENs on one connection of its own and hands the
// events to whoever waits for that delivery key. Notifications can be lost
// (a dropped connection), so a waiter also looks at the deliveries row now and then.
import { bestEffort } from '../core/best-effort.js';
import type pg from 'pg';
import { dedicatedClient } from './dedicated-client.js';
import type { Logger } from '../core/logger.js';
import type { Queryable } from './deliveries.js';

const CHANNEL = 'datadesk_jobs';

export type JobEvent = { key: string; step: string } | { key: string; done: true };

/** Sends an event to every listening process (a few hundred bytes; NOTIFY allows 8,000). */
export async function notifyJobEvent(db: Queryable, event: JobEvent): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(event)]);
}

export class JobEvents {
  private client?: pg.Client;
  private connecting?: Promise<void>;
  private readonly waiters = new Map<string, Set<(event: JobEvent) => void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  /** Calls `on` for each event of this key until the returned function is called. */
  async subscribe(key: string, on: (event: JobEvent) => void): Promise<() => void> {
    await this.listen();
    const set = this.waiters.get(key) ?? new Set();
    set.add(on);
    this.waiters.set(key, set);
    return () => {
      set.delete(on);
      if (!set.size) this.waiters.delete(key);
    };
  }

  private listen(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= (async () => {
      let client: pg.Client | undefined;
      client = await dedicatedClient(this.pool, (error) => {
        if (!client || this.client !== client) return;
        this.logger.warn(`jobs: lost the LISTEN connection (${error.message}); waiting answers fall back to polling`);
        this.client = undefined;
        void bestEffort(client.end(), 'closing the job-events connection');
      });
      client.on('notification', (n) => {
        let event: JobEvent;
        try {
          event = JSON.parse(n.payload ?? '');
        } catch {
          return;
        }
        for (const on of this.waiters.get(event.key) ?? []) on(event);
      });
      await client.query(`LISTEN ${CHANNEL}`);
      this.client = client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await bestEffort(client.end(), 'closing the job-events connection');
  }
}
