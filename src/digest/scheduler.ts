// The digest scheduler. Any number of bot processes run it; a PostgreSQL
// advisory lock, held on a dedicated connection, makes one of them the leader
// (the lock dies with a crashed leader's connection, and another process takes
// over at its next tick). Each period's run is a row keyed by
// (subscription, period end): inserting it claims the post, so a second post of
// a period is impossible. A claim whose leader died is taken over after a
// lease. Missed periods are posted once within a grace window, else recorded
// as skipped. Delivery retries with backoff; a channel that is gone disables
// its subscription. Croner computes the fire times (time zones, DST); the
// clock is injected so tests can move it.
import { hostname } from 'node:os';
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import type { Logger } from '../core/logger.js';
import { describeError } from '../core/errors.js';
import { ChannelGoneError, type Deliver } from './delivery.js';
import { firesBetween, previousFire } from './schedule.js';
import { disableSubscription, enabledSubscriptions, type Subscription } from './subscriptions.js';

const LEADER_LOCK_KEY = 7_322_007;

export interface DigestContent {
  /** the answer to post for this subscription and period, and state to remember (backtest watches) */
  produce(sub: Subscription, period: { start: Date; end: Date }): Promise<{ answer: Answer; state?: Record<string, unknown> }>;
}

export interface SchedulerOptions {
  pool: pg.Pool;
  content: DigestContent;
  /** delivery per platform */
  deliver: Partial<Record<Subscription['platform'], Deliver>>;
  logger: Logger;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** how late a missed period may still be posted */
  graceMs?: number;
  /** after this long, another leader takes over an unfinished claim */
  leaseMs?: number;
  deliveryAttempts?: number;
  name?: string;
}

export class DigestScheduler {
  private leader?: pg.PoolClient;
  private readonly name: string;
  private readonly now: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly graceMs: number;
  private readonly leaseMs: number;
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(private readonly o: SchedulerOptions) {
    this.name = o.name ?? `${hostname()}:${process.pid}`;
    this.now = o.now ?? (() => new Date());
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.graceMs = o.graceMs ?? 6 * 3_600_000;
    this.leaseMs = o.leaseMs ?? 10 * 60_000;
  }

  get isLeader(): boolean {
    return Boolean(this.leader);
  }

  private async becomeLeader(): Promise<boolean> {
    if (this.leader) return true;
    const client = await this.o.pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LEADER_LOCK_KEY]);
      if (rows[0].ok) {
        this.leader = client;
        // the lock lives on this connection: when the database drops it, leadership is gone too
        client.on('error', (error) => {
          if (this.leader !== client) return;
          this.leader = undefined;
          this.o.logger.warn(`digests: ${this.name} lost its leader connection (${error.message}); it will try to lead again`);
          client.release(true);
        });
        this.o.logger.info(`digests: ${this.name} schedules the digests`);
        return true;
      }
    } catch (error) {
      client.release(true);
      throw error;
    }
    client.release();
    return false;
  }

  /** One pass: if leader, claim and post every due period. Returns the number of posts made. */
  async tick(): Promise<number> {
    if (this.ticking || !(await this.becomeLeader())) return 0;
    this.ticking = true;
    let posted = 0;
    try {
      const now = this.now();
      const subscriptions = await enabledSubscriptions(this.o.pool);
      for (const sub of subscriptions) {
        const { rows } = await this.o.pool.query<{ last: Date | null }>('SELECT max(period_end) AS last FROM digest_runs WHERE subscription_id = $1', [sub.id]);
        const after = new Date(Math.max(rows[0].last?.getTime() ?? 0, sub.created_at.getTime()));
        for (const end of firesBetween(sub.cron, sub.timezone, after, now)) {
          const start = previousFire(sub.cron, sub.timezone, end);
          if (now.getTime() - end.getTime() > this.graceMs) {
            await this.o.pool.query(
              `INSERT INTO digest_runs (subscription_id, period_start, period_end, status, error) VALUES ($1, $2, $3, 'skipped', 'missed: the bot was down past the grace window') ON CONFLICT DO NOTHING`,
              [sub.id, start, end],
            );
            continue;
          }
          const claim = await this.o.pool.query<{ id: number }>(
            `INSERT INTO digest_runs (subscription_id, period_start, period_end, status, claimed_by, claimed_at) VALUES ($1, $2, $3, 'claimed', $4, $5)
             ON CONFLICT DO NOTHING RETURNING id`,
            [sub.id, start, end, this.name, now],
          );
          if (claim.rowCount) posted += await this.run(sub, claim.rows[0].id, { start, end });
        }
      }
      // claims whose leader died before posting
      const stale = await this.o.pool.query<{ id: number; subscription_id: number; period_start: Date; period_end: Date }>(
        `UPDATE digest_runs SET claimed_by = $1, claimed_at = $2 WHERE status = 'claimed' AND claimed_at < $3 RETURNING id, subscription_id, period_start, period_end`,
        [this.name, now, new Date(now.getTime() - this.leaseMs)],
      );
      for (const r of stale.rows) {
        const sub = subscriptions.find((s) => s.id === r.subscription_id);
        if (!sub) continue;
        this.o.logger.warn(`digests: taking over digest #${sub.id} for ${r.period_end.toISOString()} from a leader that stopped`);
        posted += await this.run(sub, r.id, { start: r.period_start, end: r.period_end });
      }
    } finally {
      this.ticking = false;
    }
    return posted;
  }

  private async run(sub: Subscription, runId: number, period: { start: Date; end: Date }): Promise<number> {
    const deliver = this.o.deliver[sub.platform];
    const fail = (error: string) => this.o.pool.query(`UPDATE digest_runs SET status = 'failed', error = $2 WHERE id = $1`, [runId, error]);
    if (!deliver) {
      await fail(`no ${sub.platform} connection configured`);
      return 0;
    }
    let produced;
    try {
      produced = await this.o.content.produce(sub, period);
    } catch (error) {
      await fail(`content: ${describeError(error)}`);
      this.o.logger.error(`digests: #${sub.id} could not be written: ${describeError(error)}`);
      return 0;
    }
    const attempts = this.o.deliveryAttempts ?? 4;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.o.pool.query('UPDATE digest_runs SET attempts = $2 WHERE id = $1', [runId, attempt]);
      try {
        await deliver(sub, produced.answer);
        await this.o.pool.query(`UPDATE digest_runs SET status = 'posted', posted_at = $2 WHERE id = $1`, [runId, this.now()]);
        if (produced.state) await this.o.pool.query('UPDATE digest_subscriptions SET last_state = $2 WHERE id = $1', [sub.id, JSON.stringify(produced.state)]);
        return 1;
      } catch (error) {
        if (error instanceof ChannelGoneError) {
          await fail(error.message);
          await disableSubscription(this.o.pool, sub.id, error.message);
          this.o.logger.warn(`digests: disabled #${sub.id}: ${error.message}`);
          return 0;
        }
        if (attempt === attempts) {
          await fail(`delivery: ${describeError(error)}`);
          this.o.logger.error(`digests: #${sub.id} not delivered after ${attempts} attempts: ${describeError(error)}`);
          return 0;
        }
        await this.sleep(1_000 * 2 ** (attempt - 1));
      }
    }
    return 0;
  }

  start(intervalMs: number): void {
    const loop = () => this.tick().catch((error) => this.o.logger.error(`digests: ${describeError(error)}`));
    void loop();
    this.timer = setInterval(loop, intervalMs);
  }

  /** Stops ticking and gives up leadership (a crashed process gives it up with its connection). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.leader) {
      await this.leader.query('SELECT pg_advisory_unlock($1)', [LEADER_LOCK_KEY]).catch(() => undefined);
      this.leader.release();
      this.leader = undefined;
    }
  }

  /** For tests: die like a crashed process, the lock going with the connection. */
  kill(): void {
    if (this.timer) clearInterval(this.timer);
    this.leader?.release(true);
    this.leader = undefined;
  }
}
