// The digest scheduler. Any number of bot processes run it; a process leads
// only the platforms it is configured for (those it has a delivery for), each
// platform through its own PostgreSQL advisory lock held on a dedicated
// connection (the lock dies with a crashed leader's connection, and another
// process configured for that platform takes over at its next tick). So a
// Teams-only process never claims, posts or fails a Slack period. Each
// period's run is a row keyed by (subscription, period end): inserting it
// claims the period. A claim whose leader died is taken over after a lease.
// Missed periods are posted once within a grace window, else recorded as
// skipped. Croner computes the fire times (time zones, DST); the clock is
// injected so tests can move it. The scheduler only claims: a claimed period
// is handed to the inbox as a job (digestJob), which an answer worker runs.
//
// A run is a delivery (see runDigest): the period's answer is written once
// on its row of deliveries, and the platform's reply sink posts it as a new
// channel post (native blocks, CSV links, the give-up sentence, as for an
// answer), skipping what an earlier attempt recorded and finding a post whose
// record was lost in the channel's history (Teams has none: a post that may
// have been made is not made again). A per-run advisory lock keeps two
// callers from running one period at once, so runDigest is the body of the
// answer workers' digest jobs (digest-jobs.ts). Digests pass no fairness
// limit: they are not a person's questions.
import { bestEffort } from '../core/best-effort.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import type { Logger } from '../core/logger.js';
import { describeError } from '../core/errors.js';
import { ChannelGoneError, UNCONFIRMED_POST } from '../core/platform.js';
import { inTransaction } from '../db/transaction.js';
import type { AnswerJob, DigestJob } from '../jobs/answer-job.js';
import type { JobOutbox } from '../jobs/answer-worker.js';
import { Deliveries, type DeliveryRow } from '../jobs/deliveries.js';
import { firesBetween, previousFire } from './schedule.js';
import { disableSubscription, enabledSubscriptions, type Subscription } from './subscriptions.js';

export type Platform = Subscription['platform'];

/** Leader locks are (LEADER_LOCK_KEY, platformLockKey(platform)): one per platform. */
const LEADER_LOCK_KEY = 7_322_007;
/** Run locks are (RUN_LOCK_KEY, run id): one caller at a time per run. */
const RUN_LOCK_KEY = 7_322_008;

/** The second key of a platform's leader lock: FNV-1a of its name, as a signed 32-bit integer. */
function platformLockKey(platform: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(platform, 'utf8')) {
    h ^= ch;
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

export interface DigestContent {
  /** the answer to post for this subscription and period, and state to remember (backtest watches) */
  produce(sub: Subscription, period: { start: Date; end: Date }): Promise<{ answer: Answer; state?: Record<string, unknown> }>;
}

export interface Period {
  start: Date;
  end: Date;
}

/** What one call of runDigest did. */
export type RunOutcome =
  /** posted now (every remaining step done) */
  | 'posted'
  /** the post was found in the channel's history (made by an earlier attempt) and the run completed */
  | 'found'
  /** nothing to do: the run was already posted, failed or skipped */
  | 'done'
  /** another caller is running this period right now */
  | 'busy'
  /** failed for good (content, or delivery after every attempt); recorded on the row */
  | 'failed'
  /** the channel is gone; the subscription was disabled */
  | 'disabled';

/** This process has no delivery for the subscription's platform: nothing was touched. */
export class PlatformNotConfiguredError extends Error {}

export interface RunDeps {
  pool: pg.Pool;
  content: DigestContent;
  /** each platform's outbox (it makes new channel posts): the platforms this process is configured for */
  deliver: Partial<Record<Platform, JobOutbox>>;
  logger: Logger;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** attempts at posting a period */
  deliveryAttempts?: number;
  /** who holds the claim (written to claimed_by) */
  name?: string;
  /** connections held by running runs, so a test can kill them with the process */
  clients?: Set<pg.PoolClient>;
}

/** The delivery key of a digest period: one post per subscription and period, however many runners try. */
const digestKey = (sub: Subscription, period: Period) => `digest:${sub.id}:${period.end.toISOString()}`;

/** A claimed period as the job the scheduler hands to the inbox (a worker runs it: digest-jobs.ts). */
const digestJob = (sub: Subscription, runId: number, period: Period): DigestJob => ({
  kind: 'digest',
  key: digestKey(sub, period),
  platform: sub.platform,
  subscriptionId: sub.id,
  runId,
  start: period.start.toISOString(),
  end: period.end.toISOString(),
});

/** What a run's row says when a platform without history could not tell whether an earlier runner posted. */
const UNCONFIRMED_NOTE =
  'the runner stopped during the post; not posted again (this platform has no history to check, and a second post would be a duplicate)';

/**
 * Runs one claimed period to the end. The period is a delivery (jobs/deliveries.ts, keyed by digestKey): its
 * answer is written once, and the platform's reply sink posts it as a new channel post, skipping what an earlier
 * attempt recorded and finding a post whose record was lost, as it does for a question's answer. Idempotent: a
 * concurrent call returns 'busy' (the run's lock), a later one 'done', or finishes what a crashed one left.
 * Throws PlatformNotConfiguredError, touching nothing, when this process has no outbox for the platform.
 */
export async function runDigest(d: RunDeps, sub: Subscription, runId: number, period: Period): Promise<RunOutcome> {
  const outbox = d.deliver[sub.platform];
  if (!outbox)
    throw new PlatformNotConfiguredError(
      `this process has no ${sub.platform} connection: digest run ${runId} is left to a process that has one`,
    );
  const c = await d.pool.connect();
  const onError = () => undefined; // a dropped connection fails the next query; that is handled there
  c.on('error', onError);
  d.clients?.add(c);
  let broken = false;
  try {
    const { rows: locked } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, ($2::bigint % 2147483647)::int) AS ok', [
      RUN_LOCK_KEY,
      runId,
    ]);
    if (!locked[0].ok) return 'busy';
    try {
      return await runLocked({ ...d, c, outbox }, sub, runId, period);
    } finally {
      await c.query('SELECT pg_advisory_unlock($1, ($2::bigint % 2147483647)::int)', [RUN_LOCK_KEY, runId]).catch(() => (broken = true));
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    c.off('error', onError);
    // a killed test process has already destroyed it
    if (d.clients?.delete(c) ?? true) c.release(broken);
  }
}

type LockedDeps = RunDeps & { c: pg.PoolClient; outbox: JobOutbox };

/** The run, under its lock: the delivery's attempts, then the run's end (posted, failed, or the channel gone). */
async function runLocked(d: LockedDeps, sub: Subscription, runId: number, period: Period): Promise<RunOutcome> {
  const { c } = d;
  const now = d.now ?? (() => new Date());
  const { rows } = await c.query<{ subscription_id: number; status: string }>(
    'SELECT subscription_id, status FROM digest_runs WHERE id = $1',
    [runId],
  );
  const row = rows[0];
  if (!row) throw new Error(`digest run ${runId} does not exist`);
  if (row.subscription_id !== sub.id)
    throw new Error(`digest run ${runId} belongs to subscription #${row.subscription_id}, not #${sub.id}`);
  if (row.status !== 'claimed') return 'done';
  // the claim is ours now (a takeover, a job on another process); this also renews the lease
  await c.query('UPDATE digest_runs SET claimed_by = $2, claimed_at = $3 WHERE id = $1', [
    runId,
    d.name ?? `${hostname()}:${process.pid}`,
    now(),
  ]);
  const key = digestKey(sub, period);
  const end = async (status: 'posted' | 'failed', error: string | null, state?: unknown) => {
    await inTransaction(d.pool, async (tx) => {
      await tx.query(`UPDATE digest_runs SET status = $2, posted_at = $3, error = $4 WHERE id = $1`, [
        runId,
        status,
        status === 'posted' ? now() : null,
        error,
      ]);
      if (state) await tx.query('UPDATE digest_subscriptions SET last_state = $2 WHERE id = $1', [sub.id, JSON.stringify(state)]);
      await tx.query(`UPDATE deliveries SET status = $2, finished_at = now() WHERE key = $1`, [
        key,
        status === 'posted' ? 'answered' : 'failed',
      ]);
    });
  };
  const outcome = await attempts(d, sub, runId, period, key);
  if (outcome.kind === 'gone') {
    await end('failed', outcome.error.message);
    await disableSubscription(d.pool, sub.id, outcome.error.message);
    d.logger.warn(`digests: disabled #${sub.id}: ${outcome.error.message}`);
    return 'disabled';
  }
  if (outcome.kind === 'failed') {
    await end('failed', outcome.why);
    d.logger.error(`digests: #${sub.id} for ${period.end.toISOString()}: ${outcome.why}`);
    return 'failed';
  }
  const unconfirmed = outcome.delivery.steps.includes(UNCONFIRMED_POST);
  if (unconfirmed) d.logger.warn(`digests: #${sub.id} for ${period.end.toISOString()}: ${UNCONFIRMED_NOTE}`);
  const { rows: kept } = await c.query<{ state: unknown }>('SELECT state FROM digest_runs WHERE id = $1', [runId]);
  await end('posted', unconfirmed ? UNCONFIRMED_NOTE : null, kept[0]?.state);
  return outcome.delivery.steps.includes('found') ? 'found' : 'posted';
}

type Attempted = { kind: 'posted'; delivery: DeliveryRow } | { kind: 'gone'; error: ChannelGoneError } | { kind: 'failed'; why: string };

/** The delivery's attempts: the answer (written once), then the sink's post; a failed post is tried again, then given up. */
async function attempts(d: LockedDeps, sub: Subscription, runId: number, period: Period, key: string): Promise<Attempted> {
  const sleep = d.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const tries = d.deliveryAttempts ?? 4;
  // the run's own connection: a runner killed mid-run (its connection gone) cannot go on writing
  const db = d.c as unknown as pg.Pool;
  const deliveries = new Deliveries(db);
  let reply;
  try {
    reply = await d.outbox.newPost!(sub, { since: period.end.toISOString() });
  } catch (error) {
    if (error instanceof ChannelGoneError) return { kind: 'gone', error };
    throw error;
  }
  const job: AnswerJob = {
    key,
    message: {
      platform: sub.platform,
      threadId: `digest:${sub.id}`,
      channel: sub.channel,
      text: `digest #${sub.id}`,
      ...(sub.workspace ? { workspace: sub.workspace } : {}),
    },
    action: { type: 'answer' },
    reply,
  };
  await Deliveries.admit(db, {
    key,
    jobId: randomUUID(),
    platform: sub.platform,
    channel: sub.channel,
    workspace: sub.workspace ?? undefined,
  });
  for (let attempt = 1; ; attempt++) {
    const { rows } = await db.query<DeliveryRow>(
      `UPDATE deliveries SET status = 'answering', attempts = attempts + 1, started_at = now() WHERE key = $1 RETURNING *`,
      [key],
    );
    let delivery = rows[0];
    let answer = delivery.answer;
    if (!answer) {
      try {
        const produced = await d.content.produce(sub, period);
        answer = produced.answer;
        await deliveries.saveAnswer(key, answer);
        await db.query('UPDATE digest_runs SET state = $2 WHERE id = $1', [runId, produced.state ? JSON.stringify(produced.state) : null]);
      } catch (error) {
        return { kind: 'failed', why: `content: ${describeError(error)}` };
      }
    }
    const done = new Set(delivery.steps);
    const steps = {
      done: (s: string) => done.has(s),
      record: async (s: string) => void (done.add(s), await deliveries.recordStep(key, s)),
    };
    try {
      await (await d.outbox.replies(job, delivery)).deliver(answer, steps);
      delivery = { ...delivery, steps: [...done] };
      return { kind: 'posted', delivery };
    } catch (error) {
      if (error instanceof ChannelGoneError) return { kind: 'gone', error };
      if (attempt >= tries) {
        // every attempt failed: said where the digest was due, as a question's give-up is said in its thread
        await bestEffort((await d.outbox.replies(job, delivery)).giveUp(DIGEST_GAVE_UP), 'saying a digest gave up');
        return { kind: 'failed', why: `delivery: ${describeError(error)}` };
      }
      await sleep(1_000 * 2 ** (attempt - 1));
    }
  }
}

const DIGEST_GAVE_UP = 'This digest could not be posted: every attempt failed (it has been logged). The next one comes as scheduled.';

/** What the scheduler needs: the platforms it may lead, when periods are due, and the inbox it hands them to. */
export interface SchedulerOptions {
  pool: pg.Pool;
  logger: Logger;
  /** the platforms this process is configured for (it has an outbox for them): the ones it may lead */
  deliver: Partial<Record<Platform, unknown>>;
  now?: () => Date;
  /** who holds the claims (written to claimed_by) */
  name?: string;
  /** how late a missed period may still be posted */
  graceMs?: number;
  /** after this long, another leader takes over an unfinished claim */
  leaseMs?: number;
  /** after this long, a claim whose runner holds no lock (it died) is taken over without waiting for the lease */
  takeoverMs?: number;
  /**
   * Hands a claimed period to the inbox as a job (channels/inbox.ts receive); an answer worker runs it with the
   * digest producer (digest-jobs.ts). True: handed on (counted by tick); false: delivered before.
   */
  dispatch: (job: DigestJob) => Promise<boolean>;
}

export class DigestScheduler {
  /** the connection holding this process's leader locks */
  private lockClient?: pg.PoolClient;
  private readonly led = new Set<Platform>();
  private readonly platforms: Platform[];
  private readonly name: string;
  private readonly now: () => Date;
  private readonly graceMs: number;
  private readonly leaseMs: number;
  private readonly takeoverMs: number;
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(private readonly o: SchedulerOptions) {
    this.name = o.name ?? `${hostname()}:${process.pid}`;
    this.now = o.now ?? (() => new Date());
    this.graceMs = o.graceMs ?? 6 * 3_600_000;
    this.leaseMs = o.leaseMs ?? 10 * 60_000;
    this.takeoverMs = o.takeoverMs ?? 30_000;
    this.platforms = (Object.keys(o.deliver) as Platform[]).filter((p) => o.deliver[p]).sort();
  }

  /** Whether this process leads any platform. */
  get isLeader(): boolean {
    return this.led.size > 0;
  }

  /** The platforms this process leads now. */
  get leading(): Platform[] {
    return [...this.led].sort();
  }

  /** Takes the leader lock of every configured platform nobody leads; returns the platforms led. */
  private async lead(): Promise<Platform[]> {
    const missing = this.platforms.filter((p) => !this.led.has(p));
    if (!missing.length) return this.leading;
    const held = this.lockClient;
    const client = held ?? (await this.o.pool.connect());
    try {
      for (const p of missing) {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
          LEADER_LOCK_KEY,
          platformLockKey(p),
        ]);
        if (rows[0].ok) {
          this.led.add(p);
          this.o.logger.info(`digests: ${this.name} schedules the ${p} digests`);
        }
      }
    } catch (error) {
      if (held) this.loseLeadership(client, describeError(error));
      else client.release(true);
      throw error;
    }
    if (!held && this.led.size) {
      this.lockClient = client;
      // the locks live on this connection: when the database drops it, leadership is gone too
      client.on('error', (error) => this.loseLeadership(client, error.message));
    } else if (!held) {
      client.release();
    }
    return this.leading;
  }

  private loseLeadership(client: pg.PoolClient, why: string): void {
    if (this.lockClient !== client) return;
    this.lockClient = undefined;
    this.led.clear();
    this.o.logger.warn(`digests: ${this.name} lost its leader connection (${why}); it will try to lead again`);
    client.release(true);
  }

  /** One pass: claim every due period of the platforms this process leads and hand it to the inbox. Returns the periods handed on. */
  async tick(): Promise<number> {
    if (this.ticking) return 0;
    this.ticking = true;
    let delivered = 0;
    try {
      const led = await this.lead();
      if (!led.length) return 0;
      const now = this.now();
      const subscriptions = (await enabledSubscriptions(this.o.pool)).filter((s) => led.includes(s.platform));
      for (const sub of subscriptions) {
        const { rows } = await this.o.pool.query<{ last: Date | null }>(
          'SELECT max(period_end) AS last FROM digest_runs WHERE subscription_id = $1',
          [sub.id],
        );
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
          if (claim.rowCount) delivered += await this.handOn(sub, claim.rows[0].id, { start, end });
        }
      }
      // claims of the platforms led here whose runner stopped (a crash) before finishing: past the lease, or
      // sooner, once no runner holds the run's lock (a runner holds it on its own connection while it works, so
      // a dead one's is free at once) and the claim is older than the takeover wait. A re-queued period that a
      // live runner then finds done or running is a no-op: runs are idempotent steps.
      const stale = await this.o.pool.query<{ id: number; subscription_id: number; period_start: Date; period_end: Date }>(
        `UPDATE digest_runs r SET claimed_by = $1, claimed_at = $2
         FROM digest_subscriptions s
         WHERE s.id = r.subscription_id AND s.enabled AND s.platform = ANY($4::text[]) AND r.status = 'claimed'
           AND (r.claimed_at < $3 OR (r.claimed_at < $5 AND NOT EXISTS (
             SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
               AND l.classid = ${RUN_LOCK_KEY} AND l.objid = (r.id % 2147483647)::oid)))
         RETURNING r.id, r.subscription_id, r.period_start, r.period_end`,
        [this.name, now, new Date(now.getTime() - this.leaseMs), led, new Date(now.getTime() - this.takeoverMs)],
      );
      for (const r of stale.rows) {
        const sub = subscriptions.find((s) => s.id === r.subscription_id);
        if (!sub) continue;
        this.o.logger.warn(`digests: taking over digest #${sub.id} for ${r.period_end.toISOString()} from a runner that stopped`);
        delivered += await this.handOn(sub, r.id, { start: r.period_start, end: r.period_end });
      }
    } finally {
      this.ticking = false;
    }
    return delivered;
  }

  /** Hands a claimed period to the inbox; 1 when it was handed on. */
  private async handOn(sub: Subscription, runId: number, period: Period): Promise<number> {
    return (await this.o.dispatch(digestJob(sub, runId, period))) ? 1 : 0;
  }

  start(intervalMs: number): void {
    const loop = () => this.tick().catch((error) => this.o.logger.error(`digests: ${describeError(error)}`));
    void loop();
    this.timer = setInterval(loop, intervalMs);
  }

  /** Stops ticking and gives up leadership (a crashed process gives it up with its connection). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const client = this.lockClient;
    if (client) {
      this.lockClient = undefined;
      let broken = false;
      for (const p of this.led) {
        await client.query('SELECT pg_advisory_unlock($1, $2)', [LEADER_LOCK_KEY, platformLockKey(p)]).catch(() => (broken = true));
      }
      client.release(broken);
    }
    this.led.clear();
  }

  /** For tests: die like a crashed process, the leader locks going with the connection. */
  kill(): void {
    if (this.timer) clearInterval(this.timer);
    this.lockClient?.release(true);
    this.lockClient = undefined;
    this.led.clear();
  }
}
