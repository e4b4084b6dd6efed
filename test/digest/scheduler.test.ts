// Exactly-once digests: two scheduler instances on one real PostgreSQL, a
// controllable clock, real Slack and Teams delivery to local fakes.
import { WebClient } from '@slack/web-api';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTeamsAdapter } from '../../src/channels/teams/teams-adapter.js';
import { saveConversationReference } from '../../src/channels/teams/conversation-store.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { crimeDigest } from '../../src/digest/content.js';
import { slackPoster, teamsPoster } from '../helpers/jobs.js';
import { DigestScheduler, PlatformNotConfiguredError, runDigest, type DigestContent, type Period } from '../../src/digest/scheduler.js';
import type { Subscription } from '../../src/digest/subscriptions.js';
import { APP_SEARCH_PATH } from '../../src/db/database.js';
import { digestCommand } from '../../src/digest/subscriptions.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { loadStocks } from '../helpers/stock-data.js';
import { testDesk } from '../helpers/desk.js';
import { digestContent } from '../../src/digest/digest-content.js';
import { startFakeSlack, type FakeSlack } from '../helpers/fake-slack.js';
import { startFakeConnector, type FakeConnector } from '../helpers/fake-connector.js';

let db: TestDatabase;
let slack: FakeSlack;
let connector: FakeConnector;
let clock = new Date('2026-03-02T12:00:00Z');
const schedulers: DigestScheduler[] = [];
/** each scheduler stands for a process: its own pool, as a process has */
const pools: pg.Pool[] = [];

const crimeContent: DigestContent = { produce: async (_sub, period) => ({ answer: await crimeDigest(db.pool, period) }) };
/** The crime digest with a chart Slack cannot draw itself (on two axes): it goes up as a PNG in the post's thread. */
const pictureContent: DigestContent = {
  produce: async (_sub, period) => {
    const answer = await crimeDigest(db.pool, period);
    if (answer.kind !== 'result' || !answer.chart) return { answer };
    const series = answer.chart.series.map((s, i) => (i ? { ...s, axis: 'right' as const } : s));
    return { answer: { ...answer, chart: { ...answer.chart, series } } };
  },
};

function scheduler(
  name: string,
  content: DigestContent = crimeContent,
  platforms: ('slack' | 'teams')[] = ['slack', 'teams'],
  deliveryAttempts?: number,
) {
  const logger = createMemoryLogger();
  const pool = new pg.Pool({ connectionString: db.url, max: 4, options: APP_SEARCH_PATH });
  pool.on('error', () => undefined); // as the app's pools do: a dropped idle connection is not a crash (the test database is dropped with FORCE)
  pools.push(pool);
  const deliver = {
    ...(platforms.includes('slack')
      ? { slack: slackPoster(new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }), pool, logger) }
      : {}),
    ...(platforms.includes('teams')
      ? {
          teams: teamsPoster(
            createTeamsAdapter({ appId: '', appPassword: '', tenantId: '', appType: 'MultiTenant' }, logger),
            pool,
            (png) => `http://bot/charts/${png.length}.png`,
            logger,
          ),
        }
      : {}),
  };
  /** connections of the runs in progress in this "process", killed with it */
  const clients = new Set<pg.PoolClient>();
  const now = () => clock;
  /** this process's worker: the digest job's body (digest-jobs.ts digestProducer runs the same) */
  const run = (sub: Subscription, runId: number, period: Period) =>
    runDigest({ pool, content, logger, name, now, sleep: async () => undefined, deliveryAttempts, deliver, clients }, sub, runId, period);
  const s = new DigestScheduler({
    pool,
    logger,
    name,
    now,
    graceMs: 6 * 3_600_000,
    leaseMs: 10 * 60_000,
    deliver,
    // an inbox whose worker runs the period at once, so that a tick returns with its periods posted (counted)
    dispatch: async (job) => {
      const { rows } = await pool.query<Subscription>('SELECT * FROM digest_subscriptions WHERE id = $1', [job.subscriptionId]);
      const outcome = await run(rows[0], job.runId, { start: new Date(job.start), end: new Date(job.end) });
      return outcome === 'posted' || outcome === 'found';
    },
  });
  schedulers.push(s);
  const die = s.kill.bind(s);
  const kill = () => {
    die();
    for (const c of clients) c.release(true);
    clients.clear();
  };
  return Object.assign(s, { logger, run, kill });
}

async function subscribe(text: string, channel: string, createdAt: string, platform: 'slack' | 'teams' = 'slack') {
  const reply = await digestCommand(db.pool, text, { platform, channel, userId: 'U1', defaultTimezone: 'America/Chicago' });
  const id = Number(/^Digest #(\d+)/.exec(reply)![1]);
  await db.pool.query('UPDATE digest_subscriptions SET created_at = $2 WHERE id = $1', [id, createdAt]);
  return id;
}

const posts = (channel: string) => slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === channel);
/**
 * A period's run and its delivery (jobs/deliveries.ts, keyed by scheduler.ts digestKey): the run says whether it was
 * posted, the delivery how: its attempts, the post (the message it recorded), whether the post was found in the
 * channel's history, whether the chart went up.
 */
const RUN_AND_DELIVERY = `SELECT r.id, r.status, r.period_end, r.error, coalesce(d.attempts, 0) AS attempts,
    d.placeholder->>'ts' AS message_id, coalesce('found' = ANY(d.steps), false) AS found_in_history,
    coalesce('chart' = ANY(d.steps), false) AS chart_uploaded
  FROM digest_runs r
  LEFT JOIN deliveries d ON d.key = 'digest:' || r.subscription_id || ':' || to_char(r.period_end AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  WHERE r.subscription_id = $1`;
const runs = async (id: number) => (await db.pool.query(`${RUN_AND_DELIVERY} ORDER BY r.period_end`, [id])).rows;

/** A Teams channel the bot was added to: its conversation reference stored, as the bot stores it. */
async function teamsChannel(conversation: string, name: string): Promise<string> {
  await saveConversationReference(
    db.pool,
    {
      conversation: { id: conversation, conversationType: 'channel', isGroup: true, name },
      serviceUrl: connector.serviceUrl,
      channelId: 'msteams',
      bot: { id: '28:datadesk', name: 'Data Desk' },
      user: { id: '29:ada', name: 'Ada' },
    },
    '19:team@thread.tacv2',
  );
  return conversation;
}

/**
 * `a` claims the run of subscription `id` and dies in it: its tick then ends in a dropped connection, as a
 * killed process would (the loop in start() logs it). Returns that tick, still waiting on the content
 * (in an object: an async function returning the promise itself would wait for it).
 */
async function dieAfterClaim(a: DigestScheduler, id: number): Promise<{ dying: Promise<unknown> }> {
  const dying = a.tick().catch(() => undefined);
  for (let i = 0; i < 500 && !(await runs(id)).length; i++) await new Promise((r) => setTimeout(r, 20));
  expect((await runs(id)).map((r) => r.status)).toEqual(['claimed']);
  a.kill();
  return { dying };
}

/** Ticks `b` until it leads (the dead connection's lock gone); `eachTick` sees what each tick posted. */
async function untilLeader(b: DigestScheduler, eachTick: (posted: number) => void = () => undefined): Promise<void> {
  for (let i = 0; i < 500 && !b.isLeader; i++) {
    eachTick(await b.tick());
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(b.isLeader).toBe(true);
}

beforeAll(async () => {
  db = await createTestDatabase();
  // drop() ends the pool and then drops the database WITH (FORCE), which can reach a connection still closing;
  // without a listener the pool re-emits that as an uncaught error
  db.pool.on('error', () => undefined);
  await loadCrimes(db.pool, 5_000);
  slack = await startFakeSlack();
  slack.now = () => clock.getTime(); // posts are stamped on the test's clock, as Slack stamps them on its own
  connector = await startFakeConnector();
});
afterAll(async () => {
  for (const s of schedulers) await s.stop();
  await slack?.close();
  await connector?.close();
  for (const p of pools) await p.end();
  await db?.drop();
});
beforeEach(async () => {
  for (const s of schedulers.splice(0)) await s.stop();
  await db.pool.query('UPDATE digest_subscriptions SET enabled = false');
});

describe('digest scheduler', () => {
  it('two instances: one post per period, whatever the number of ticks', async () => {
    const id = await subscribe('digest weekly monday 09:00 America/Chicago', 'C-weekly', '2026-03-01T00:00:00Z');
    const [a, b] = [scheduler('a'), scheduler('b')];
    clock = new Date('2026-03-02T15:00:30Z'); // Monday 09:00:30 in Chicago (CST)
    const first = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    expect(first.reduce((x, y) => x + y, 0)).toBe(1);
    // one leader per platform (both are configured for both platforms; they may split them)
    expect([...a.leading, ...b.leading].sort()).toEqual(['slack', 'teams']);
    expect(posts('C-weekly')).toHaveLength(1);
    expect(String(posts('C-weekly')[0].args.text)).toMatch(/^Crime digest, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: [\d,]+ crimes/);
    expect(JSON.stringify(posts('C-weekly')[0].args.blocks)).toContain('Data: data through');
    await Promise.all([a.tick(), b.tick()]);
    clock = new Date('2026-03-09T14:00:30Z'); // next Monday 09:00:30, now CDT
    await Promise.all([a.tick(), b.tick()]);
    expect(posts('C-weekly')).toHaveLength(2);
    expect((await runs(id)).map((r) => [r.status, r.period_end.toISOString()])).toEqual([
      ['posted', '2026-03-02T15:00:00.000Z'],
      ['posted', '2026-03-09T14:00:00.000Z'],
    ]);
  });

  it('the leader dies mid-run: another takes over after the lease, still exactly one post', async () => {
    const id = await subscribe('digest daily 08:00 America/Chicago', 'C-crash', '2026-03-21T00:00:00Z');
    let release!: () => void;
    const hanging: DigestContent = { produce: () => new Promise((resolve) => (release = () => resolve({ answer: undefined as never }))) };
    const a = scheduler('a', hanging);
    const b = scheduler('b');
    clock = new Date('2026-03-21T13:00:10Z'); // 08:00:10 CDT
    const { dying } = await dieAfterClaim(a, id);
    // b becomes the leader at one of its next ticks; the claim is still fresh, so b does not post it again
    await untilLeader(b, (posted) => expect(posted).toBe(0));
    expect(await b.tick()).toBe(0);
    clock = new Date('2026-03-21T13:11:00Z');
    expect(await b.tick()).toBe(1);
    expect(posts('C-crash')).toHaveLength(1);
    expect((await runs(id)).map((r) => r.status)).toEqual(['posted']);
    void release;
    void dying; // still waiting on the content that never comes, like the dead process it stands for
  });

  it('a dead runner is taken over within a minute, not at the 10-minute lease: its run lock is gone with it', async () => {
    const id = await subscribe('digest daily 08:00 America/Chicago', 'C-quick', '2026-03-22T00:00:00Z');
    const hanging: DigestContent = { produce: () => new Promise(() => undefined) };
    const a = scheduler('a', hanging);
    const b = scheduler('b');
    clock = new Date('2026-03-22T13:00:10Z'); // 08:00:10 CDT
    const { dying } = await dieAfterClaim(a, id);
    await untilLeader(b);
    clock = new Date('2026-03-22T13:00:50Z'); // 40 s after the claim
    expect(await b.tick()).toBe(1);
    expect(posts('C-quick')).toHaveLength(1);
    expect((await runs(id)).map((r) => r.status)).toEqual(['posted']);
    void dying;
  });

  it('follows the local time across the DST change', async () => {
    const id = await subscribe('digest daily 09:00 America/Chicago', 'C-dst', '2026-03-05T16:00:00Z');
    const a = scheduler('a');
    for (let t = Date.parse('2026-03-06T00:00:00Z'); t <= Date.parse('2026-03-11T00:00:00Z'); t += 3_600_000) {
      clock = new Date(t);
      await a.tick();
    }
    expect((await runs(id)).map((r) => r.period_end.toISOString())).toEqual([
      '2026-03-06T15:00:00.000Z',
      '2026-03-07T15:00:00.000Z',
      '2026-03-08T14:00:00.000Z',
      '2026-03-09T14:00:00.000Z',
      '2026-03-10T14:00:00.000Z',
    ]);
    expect(posts('C-dst')).toHaveLength(5);
  });

  it('posts a missed period once within the grace window and records older ones as skipped', async () => {
    const id = await subscribe('digest daily 06:00 UTC', 'C-missed', '2026-04-01T00:00:00Z');
    const a = scheduler('a');
    clock = new Date('2026-04-04T09:00:00Z'); // down since before Apr 1 06:00; back 3 hours after Apr 4 06:00
    expect(await a.tick()).toBe(1);
    expect((await runs(id)).map((r) => `${r.period_end.toISOString().slice(0, 10)} ${r.status}`)).toEqual([
      '2026-04-01 skipped',
      '2026-04-02 skipped',
      '2026-04-03 skipped',
      '2026-04-04 posted',
    ]);
  });

  it('retries a failing delivery and posts once; a channel that is gone disables its subscription', async () => {
    const id = await subscribe('digest daily 07:00 UTC', 'C-flaky', '2026-05-02T00:00:00Z');
    const a = scheduler('a');
    slack.failPostMessage.push('internal_error', 'internal_error');
    clock = new Date('2026-05-02T07:00:05Z');
    expect(await a.tick()).toBe(1);
    expect(posts('C-flaky')).toHaveLength(3);
    expect((await runs(id))[0]).toMatchObject({ status: 'posted', attempts: 3 });

    await db.pool.query('UPDATE digest_subscriptions SET enabled = false WHERE id = $1', [id]);
    const gone = await subscribe('digest daily 07:00 UTC', 'C-gone', '2026-05-03T00:00:00Z');
    slack.failPostMessage.push('channel_not_found');
    clock = new Date('2026-05-03T07:00:05Z');
    await a.tick();
    expect((await runs(gone)).at(-1)).toMatchObject({ status: 'failed', attempts: 1 });
    const { rows } = await db.pool.query('SELECT enabled, disabled_reason FROM digest_subscriptions WHERE id = $1', [gone]);
    expect(rows[0]).toEqual({ enabled: false, disabled_reason: 'Slack says channel_not_found for channel C-gone' });
  });

  it('delivers to Teams through the stored conversation reference', async () => {
    const conversation = await teamsChannel('19:digests@thread.tacv2', 'digests');
    await subscribe('digest weekly friday 17:00 America/Chicago', conversation, '2026-06-05T00:00:00Z', 'teams');
    const a = scheduler('a');
    clock = new Date('2026-06-05T22:00:30Z'); // Friday 17:00:30 CDT
    expect(await a.tick()).toBe(1);
    const sent = await connector.waitFor((c) => c.conversationId === conversation);
    // botbuilder's proactive send, as in Microsoft's samples (continueConversationAsync + sendActivity)
    expect(['send', 'reply']).toContain(sent.verb);
    expect(String(sent.activity.text)).toMatch(/^Crime digest/);
  });

  it('a Teams channel the bot was removed from (403) disables its digest, and nothing is said there', async () => {
    const conversation = await teamsChannel('19:removed@thread.tacv2', 'removed');
    const id = await subscribe('digest weekly friday 17:00 America/Chicago', conversation, '2026-06-19T00:00:00Z', 'teams');
    connector.gone.add(conversation);
    const a = scheduler('a');
    clock = new Date('2026-06-19T22:00:30Z');
    await a.tick();
    const { rows } = await db.pool.query('SELECT enabled, disabled_reason FROM digest_subscriptions WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ enabled: false, disabled_reason: `Teams answered 403 for conversation ${conversation}` });
    // no "Sorry, something went wrong" tried there either
    expect(connector.calls.filter((c) => c.conversationId === conversation)).toEqual([]);
  });

  it('a Teams runner that died during the post is not posted again: Teams has no history, and a duplicate is worse', async () => {
    const conversation = await teamsChannel('19:died@thread.tacv2', 'died');
    const id = await subscribe('digest weekly friday 17:00 America/Chicago', conversation, '2026-06-12T00:00:00Z', 'teams');
    // what a runner killed between the post and its record leaves: the claim, and its delivery with the post begun
    clock = new Date('2026-06-12T22:00:30Z');
    const end = new Date('2026-06-12T22:00:00Z');
    await db.pool.query(
      `INSERT INTO digest_runs (subscription_id, period_start, period_end, status, claimed_by, claimed_at) VALUES ($1, $2, $3, 'claimed', 'dead', $4)`,
      [id, new Date('2026-06-05T22:00:00Z'), end, new Date('2026-06-12T22:00:05Z')],
    );
    await db.pool.query(
      `INSERT INTO deliveries (key, job_id, platform, channel, status, steps, attempts) VALUES ($1, gen_random_uuid(), 'teams', $2, 'answering', ARRAY['post:started'], 1)`,
      [`digest:${id}:${end.toISOString()}`, conversation],
    );
    const before = connector.calls.filter((c) => c.conversationId === conversation).length;
    const a = scheduler('a');
    clock = new Date('2026-06-12T22:01:00Z'); // past the takeover wait, and the dead runner holds no lock
    await a.tick();
    const { rows } = await db.pool.query('SELECT status, error FROM digest_runs WHERE subscription_id = $1', [id]);
    expect(rows).toEqual([{ status: 'posted', error: expect.stringMatching(/^the runner stopped during the post; not posted again/) }]);
    expect(connector.calls.filter((c) => c.conversationId === conversation)).toHaveLength(before);
  });
});

describe('digests as idempotent steps', () => {
  const run = async (id: number) => (await db.pool.query(`${RUN_AND_DELIVERY} ORDER BY r.period_end DESC LIMIT 1`, [id])).rows[0];
  const chartUploads = (channel: string) =>
    slack.of('files.completeUploadExternal').filter((c) => (c.args.channel_id ?? c.args.channels) === channel);

  it('a digest posts with native blocks: its table a data_table, its chart drawn by Slack, nothing uploaded; the post carries its key', async () => {
    const id = await subscribe('digest daily 07:00 UTC', 'C-native', '2026-08-01T00:00:00Z');
    const a = scheduler('a');
    clock = new Date('2026-08-01T07:00:05Z');
    expect(await a.tick()).toBe(1);
    expect(posts('C-native')).toHaveLength(1);
    const types = (posts('C-native')[0].args.blocks as { type: string }[]).map((b) => b.type);
    expect(types).toContain('data_table');
    expect(types).toContain('data_visualization');
    expect(chartUploads('C-native')).toHaveLength(0);
    expect(await run(id)).toMatchObject({
      status: 'posted',
      attempts: 1,
      error: null,
      message_id: slack.messages.find((m) => m.channel === 'C-native')!.ts,
    });
    expect(posts('C-native')[0].args.metadata).toEqual({
      event_type: 'datadesk_placeholder',
      event_payload: { key: `digest:${id}:2026-08-01T07:00:00.000Z` },
    });
  });

  it('a chart that cannot be uploaded is said in the thread, never posted twice; a run retried after the post posts nothing; run() twice posts once', async () => {
    const id = await subscribe('digest daily 07:00 UTC', 'C-resume', '2026-08-02T00:00:00Z');
    const a = scheduler('a', pictureContent, ['slack'], 2);
    slack.failFileUpload.push('internal_error');
    clock = new Date('2026-08-02T07:00:05Z');
    expect(await a.tick()).toBe(1);
    // the digest stands, its thread says the chart is missing (as under an answer)
    expect(await run(id)).toMatchObject({ status: 'posted', chart_uploaded: true, error: null });
    const post = slack.messages.find((m) => m.channel === 'C-resume' && !m.thread_ts)!;
    expect(slack.messages.filter((m) => m.channel === 'C-resume' && m.thread_ts === post.ts).map((m) => m.text)).toContain(
      ':warning: The chart could not be attached this time; the numbers above are complete.',
    );
    const before = posts('C-resume').length;
    // as if the runner had died right after the post: the row is still claimed
    const { id: runId } = await run(id);
    await db.pool.query(`UPDATE digest_runs SET status = 'claimed', error = NULL WHERE id = $1`, [runId]);
    const sub = (await db.pool.query('SELECT * FROM digest_subscriptions WHERE id = $1', [id])).rows[0];
    const period = { start: new Date('2026-08-01T07:00:00Z'), end: new Date('2026-08-02T07:00:00Z') };
    const [first, second] = await Promise.all([a.run(sub, runId, period), a.run(sub, runId, period)]);
    expect([first, second].sort()).toEqual(['busy', 'posted']);
    expect(await a.run(sub, runId, period)).toBe('done');
    expect(posts('C-resume')).toHaveLength(before);
    expect(chartUploads('C-resume')).toHaveLength(1);
  });

  it('a post whose reply was lost is found in the history on the retry, not posted again', async () => {
    const id = await subscribe('digest daily 07:00 UTC', 'C-lost', '2026-08-03T00:00:00Z');
    const a = scheduler('a', pictureContent);
    slack.losePostMessageReply.push('reset');
    clock = new Date('2026-08-03T07:00:05Z');
    expect(await a.tick()).toBe(1);
    expect(posts('C-lost')).toHaveLength(1);
    const history = slack.of('conversations.history').filter((c) => c.args.channel === 'C-lost');
    expect(history).toHaveLength(1);
    expect(history[0].args).toMatchObject({
      include_all_metadata: 'true',
      oldest: String(Date.parse('2026-08-03T07:00:00Z') / 1000) + '.000000',
    });
    expect(await run(id)).toMatchObject({
      status: 'posted',
      attempts: 2,
      found_in_history: true,
      message_id: slack.messages.find((m) => m.channel === 'C-lost')!.ts,
      chart_uploaded: true,
    });
  });

  it('a leader killed between posting and recording the post: its successor finds the post in the history, still one message', async () => {
    const id = await subscribe('digest daily 08:00 America/Chicago', 'C-killed', '2026-08-04T00:00:00Z');
    const a = scheduler('a', pictureContent, ['slack']);
    const b = scheduler('b', pictureContent, ['slack']);
    slack.losePostMessageReply.push('hang');
    clock = new Date('2026-08-04T13:00:10Z'); // 08:00:10 CDT
    const dying = a.tick().catch(() => 0); // its process dies below
    await slack.waitFor((c) => c.method === 'chat.postMessage' && c.args.channel === 'C-killed');
    // the post happened; the row does not know it
    expect(await run(id)).toMatchObject({ status: 'claimed', attempts: 1, message_id: null });
    a.kill();
    for (let i = 0; i < 500 && !b.isLeader; i++) {
      expect(await b.tick()).toBe(0); // the claim is fresh: not taken over
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(b.leading).toEqual(['slack']);
    clock = new Date('2026-08-04T13:11:00Z'); // past the lease
    expect(await b.tick()).toBe(1);
    expect(posts('C-killed')).toHaveLength(1);
    expect(await run(id)).toMatchObject({
      status: 'posted',
      found_in_history: true,
      message_id: slack.messages.find((m) => m.channel === 'C-killed')!.ts,
      chart_uploaded: true,
    });
    // the chart, which the dead leader never got to, went up once, into the found post's thread
    expect(chartUploads('C-killed')).toHaveLength(1);
    void dying;
  });

  it('a Teams-only process never leads, claims, takes over or fails Slack periods', async () => {
    const slackSub = await subscribe('digest daily 07:00 UTC', 'C-teams-only', '2026-08-05T00:00:00Z');
    // a stale Slack claim too: only a Slack process may take it over
    const stale = await subscribe('digest daily 06:00 UTC', 'C-stale', '2026-08-05T00:00:00Z');
    await db.pool.query(
      `INSERT INTO digest_runs (subscription_id, period_start, period_end, status, claimed_by, claimed_at) VALUES ($1, '2026-08-04T06:00Z', '2026-08-05T06:00Z', 'claimed', 'gone', '2026-08-05T06:00:01Z')`,
      [stale],
    );
    const t = scheduler('teams-only', crimeContent, ['teams']);
    clock = new Date('2026-08-05T07:00:05Z');
    expect(await t.tick()).toBe(0);
    expect(t.leading).toEqual(['teams']);
    expect(await runs(slackSub)).toEqual([]);
    expect(await runs(stale)).toMatchObject([{ status: 'claimed' }]);
    expect((await db.pool.query('SELECT claimed_by FROM digest_runs WHERE subscription_id = $1', [stale])).rows[0].claimed_by).toBe('gone');
    const sub = (await db.pool.query('SELECT * FROM digest_subscriptions WHERE id = $1', [stale])).rows[0];
    const {
      rows: [staleRun],
    } = await db.pool.query('SELECT id FROM digest_runs WHERE subscription_id = $1', [stale]);
    await expect(
      t.run(sub, staleRun.id, { start: new Date('2026-08-04T06:00Z'), end: new Date('2026-08-05T06:00Z') }),
    ).rejects.toBeInstanceOf(PlatformNotConfiguredError);
    expect(await runs(stale)).toMatchObject([{ status: 'claimed', attempts: 0, error: null }]);
    // a Slack process then posts both
    const s = scheduler('slack-only', crimeContent, ['slack']);
    expect(await s.tick()).toBe(2);
    expect((await runs(slackSub)).map((r) => r.status)).toEqual(['posted']);
    expect((await runs(stale)).map((r) => r.status)).toEqual(['posted']);
  });

  it('two processes configured for different platforms each lead their own', async () => {
    const conversation = '19:split@thread.tacv2';
    await saveConversationReference(
      db.pool,
      {
        conversation: { id: conversation, conversationType: 'channel', isGroup: true, name: 'split' },
        serviceUrl: connector.serviceUrl,
        channelId: 'msteams',
        bot: { id: '28:datadesk', name: 'Data Desk' },
        user: { id: '29:ada', name: 'Ada' },
      },
      '19:team@thread.tacv2',
    );
    const slackSub = await subscribe('digest daily 07:00 UTC', 'C-split', '2026-08-06T00:00:00Z');
    const teamsSub = await subscribe('digest daily 07:00 UTC', conversation, '2026-08-06T00:00:00Z', 'teams');
    const s = scheduler('slack-only', crimeContent, ['slack']);
    const t = scheduler('teams-only', crimeContent, ['teams']);
    const both = scheduler('both', crimeContent, ['slack', 'teams']);
    clock = new Date('2026-08-06T07:00:05Z');
    expect(await Promise.all([s.tick(), t.tick()])).toEqual([1, 1]);
    expect(await both.tick()).toBe(0);
    expect([s.leading, t.leading, both.leading]).toEqual([['slack'], ['teams'], []]);
    expect(posts('C-split')).toHaveLength(1);
    await connector.waitFor((c) => c.conversationId === conversation);
    expect((await runs(teamsSub)).map((r) => r.status)).toEqual(['posted']);
    expect((await runs(slackSub)).map((r) => r.status)).toEqual(['posted']);
    // the Slack leader stops: the process configured for both takes Slack over, Teams stays where it is
    await s.stop();
    await both.tick();
    expect([t.leading, both.leading]).toEqual([['teams'], ['slack']]);
  });
});

describe('saved-question digests and backtest watches', () => {
  it('re-runs the saved question and the strategy each period, noting what changed', async () => {
    await loadStocks(db.pool, 4, '2022-01-04', '2023-12-29');
    const { desk } = testDesk(db);
    const content = digestContent(db.pool, desk, { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger() });
    await subscribe('digest daily 08:00 UTC How many thefts were reported in 2019?', 'C-saved', '2026-07-01T00:00:00Z');
    await subscribe(
      'digest daily 08:00 UTC 600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe',
      'C-watch',
      '2026-07-01T00:00:00Z',
    );
    const a = scheduler('a', content);
    clock = new Date('2026-07-01T08:00:05Z');
    expect(await a.tick()).toBe(2);
    const thefts = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)).rows[0].n;
    expect(String(posts('C-saved')[0].args.text)).toBe(
      `Saved question "How many thefts were reported in 2019?": Thefts in 2019, all of Chicago: ${thefts.toLocaleString('en-US')}`,
    );
    expect(String(posts('C-watch')[0].args.text)).toMatch(/^Backtest watch: 600519 Kweichow Moutai Co\., Ltd\.: Sharpe/);
    expect(JSON.stringify(posts('C-watch')[0].args.blocks)).toContain('First run of this watch.');
    clock = new Date('2026-07-02T08:00:05Z');
    expect(await a.tick()).toBe(2);
    expect(JSON.stringify(posts('C-watch')[1].args.blocks)).toContain('No change since last time.');
  });
});

describe('the accuracy digest', () => {
  it("posts the multi-turn benchmark's score into the channel, once per period, with the edit kinds missed most", async () => {
    const { desk } = testDesk(db);
    const content = digestContent(db.pool, desk, { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger() });
    const reply = await digestCommand(db.pool, 'digest daily 07:00 UTC accuracy', {
      platform: 'slack',
      channel: 'C-accuracy',
      userId: 'U1',
      defaultTimezone: 'America/Chicago',
    });
    expect(reply).toMatch(/^Digest #\d+: the accuracy digest \(the multi-turn benchmark's score\)/);
    const id = Number(/^Digest #(\d+)/.exec(reply)![1]);
    await db.pool.query(`UPDATE digest_subscriptions SET created_at = '2026-08-01T00:00:00Z' WHERE id = $1`, [id]);
    const a = scheduler('a', content);
    clock = new Date('2026-08-01T07:00:05Z');
    expect(await a.tick()).toBeGreaterThanOrEqual(1);
    const text = String(posts('C-accuracy')[0].args.text);
    expect(text).toMatch(/^Multi-turn accuracy: \d+ of \d+ turns right \(\d+\.\d%\)$/);
    const [right, turns] = /(\d+) of (\d+)/.exec(text)!.slice(1).map(Number);
    expect(turns).toBeGreaterThanOrEqual(250);
    expect(right / turns).toBeGreaterThan(0.9);
    const blocks = JSON.stringify(posts('C-accuracy')[0].args.blocks);
    expect(blocks).toContain('follow-up');
    expect(blocks).toContain('offline: the query plan reader, no model');
    // the same period again posts nothing more
    expect(await a.tick()).toBe(0);
    expect(posts('C-accuracy')).toHaveLength(1);
  }, 120_000);
});

describe('digest commands', () => {
  const ctx = { platform: 'slack' as const, channel: 'C-cmd', userId: 'U1', defaultTimezone: 'America/Chicago' };
  it('subscribes, lists and turns off; bad input stores nothing', async () => {
    const count = async () => (await db.pool.query(`SELECT count(*) AS n FROM digest_subscriptions WHERE channel = 'C-cmd'`)).rows[0].n;
    await expect(digestCommand(db.pool, 'digest weekly monday 09:00 Mars/Olympus', ctx)).rejects.toThrow(
      'Unknown time zone "Mars/Olympus"',
    );
    await expect(digestCommand(db.pool, 'digest cron 0 0 31 2 *', ctx)).rejects.toThrow('never fires');
    await expect(digestCommand(db.pool, 'digest hourly', ctx)).rejects.toThrow('"hourly" is not a schedule');
    expect(await count()).toBe(0);
    const a = await digestCommand(db.pool, 'digest weekly monday 09:00 America/Chicago', ctx);
    expect(a).toMatch(/^Digest #\d+: the crime digest, every Monday at 09:00 \(America\/Chicago\)\. Turn it off with `digest off \d+`\.$/);
    const q = await digestCommand(db.pool, 'digest daily 08:00 How many thefts were reported in 2019?', ctx);
    expect(q).toMatch(/^Digest #\d+: "How many thefts were reported in 2019\?", daily at 08:00 \(America\/Chicago\)/);
    const bt = await digestCommand(db.pool, 'digest cron 0 17 * * 5 UTC 600519 buy: RSI(14) < 30 sell: RSI(14) > 70', ctx);
    expect(bt).toMatch(/a backtest watch of `600519 buy: RSI\(14\) < 30 sell: RSI\(14\) > 70`, cron "0 17 \* \* 5" \(UTC\)/);
    // the same command again (a signed slash command replayed within five minutes): one subscription, said so
    const twice = await digestCommand(db.pool, 'digest daily 08:00 How many thefts were reported in 2019?', ctx);
    expect(twice).toBe(
      `Digest #${/#(\d+)/.exec(q)![1]} already posts "How many thefts were reported in 2019?" here, daily at 08:00 (America/Chicago): nothing was added.`,
    );
    expect((await digestCommand(db.pool, 'digest list', ctx)).split('\n')).toHaveLength(4);
    const id = /#(\d+)/.exec(a)![1];
    expect(await digestCommand(db.pool, `digest off ${id}`, ctx)).toBe(`Digest #${id} is off.`);
    await expect(digestCommand(db.pool, `digest off ${id}`, ctx)).rejects.toThrow(`There is no digest #${id} in this channel`);
  });
});
