// Progress and completion of jobs, for a receiver that waits on its asker
// (the playground holds an HTTP stream open). Workers NOTIFY on a channel;
// each receiving process LISTENs on one connection of its own and hands the
// events to whoever waits for that delivery key. A question's end is told by
// the statement that ends it (Deliveries.finish), at commit. Notifications can
// be lost with a dropped connection: its waiters are then told to look at the
// deliveries row themselves ('look'), and look again now and then until the
// connection is back (`listening`).
import { bestEffort } from '../core/best-effort.js';
import type pg from 'pg';
import { dedicatedClient } from './dedicated-client.js';
import type { Answer } from '../core/answer.js';
import type { Logger } from '../core/logger.js';
import type { Queryable } from './queryable.js';

export const JOB_EVENTS_CHANNEL = 'datadesk_jobs';

/** a step, the end (with the answer when it fitted: see Deliveries.finish), or (from this process only) 'events may have been missed: read the row' */
export type JobEvent = { key: string; step: string } | { key: string; done: true; answer?: Answer } | { key: string; look: true };

/** Tells every listening process the step a question is at (a few hundred bytes; NOTIFY allows 8,000). */
export async function notifyJobStep(db: Queryable, key: string, step: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [JOB_EVENTS_CHANNEL, JSON.stringify({ key, step } satisfies JobEvent)]);
}

export class JobEvents {
  private client?: pg.Client;
  private connecting?: Promise<void>;
  private readonly waiters = new Map<string, Set<(event: JobEvent) => void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  /** Whether events reach this process now; when not, a waiter reads the row now and then instead. */
  get listening(): boolean {
    return this.client !== undefined;
  }

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
        this.tellEveryoneToLook();
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
      await client.query(`LISTEN ${JOB_EVENTS_CHANNEL}`);
      this.client = client;
      // listening again after a loss: what ended in between was not heard
      this.tellEveryoneToLook();
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private tellEveryoneToLook(): void {
    for (const [key, set] of this.waiters) for (const on of set) on({ key, look: true });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await bestEffort(client.end(), 'closing the job-events connection');
  }
}
