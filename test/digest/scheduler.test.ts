// Exactly-once digests: two scheduler instances on one real PostgreSQL, a
// controllable clock, real Slack and Teams delivery to local fakes.
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTeamsAdapter } from '../../src/channels/teams/teams-adapter.js';
import { saveConversationReference } from '../../src/channels/teams/conversation-store.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { crimeDigest } from '../../src/digest/content.js';
import { slackDelivery, teamsDelivery } from '../../src/digest/delivery.js';
import { DigestScheduler, type DigestContent } from '../../src/digest/scheduler.js';
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

const crimeContent: DigestContent = { produce: async (_sub, period) => ({ answer: await crimeDigest(db.pool, period) }) };

function scheduler(name: string, content: DigestContent = crimeContent) {
  const logger = createMemoryLogger();
  const s = new DigestScheduler({
    pool: db.pool, content, logger, name, now: () => clock, sleep: async () => undefined, graceMs: 6 * 3_600_000, leaseMs: 10 * 60_000,
    deliver: {
      slack: slackDelivery(new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } })),
      teams: teamsDelivery(createTeamsAdapter({ appId: '', appPassword: '', tenantId: '', appType: 'MultiTenant' }, logger), '', db.pool, (png) => `http://bot/charts/${png.length}.png`),
    },
  });
  schedulers.push(s);
  return s;
}

async function subscribe(text: string, channel: string, createdAt: string, platform: 'slack' | 'teams' = 'slack') {
  const reply = await digestCommand(db.pool, text, { platform, channel, userId: 'U1', defaultTimezone: 'America/Chicago' });
  const id = Number(/^Digest #(\d+)/.exec(reply)![1]);
  await db.pool.query('UPDATE digest_subscriptions SET created_at = $2 WHERE id = $1', [id, createdAt]);
  return id;
}

const posts = (channel: string) => slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === channel);
const runs = async (id: number) => (await db.pool.query('SELECT status, period_end, attempts, error FROM digest_runs WHERE subscription_id = $1 ORDER BY period_end', [id])).rows;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
  slack = await startFakeSlack();
  connector = await startFakeConnector();
});
afterAll(async () => {
  for (const s of schedulers) await s.stop();
  await slack?.close();
  await connector?.close();
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
    expect([a.isLeader, b.isLeader].filter(Boolean)).toHaveLength(1);
    expect(posts('C-weekly')).toHaveLength(1);
    expect(String(posts('C-weekly')[0].args.text)).toMatch(/^Crime digest, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: [\d,]+ crimes/);
    expect(JSON.stringify(posts('C-weekly')[0].args.blocks)).toContain('Data: data through');
    await Promise.all([a.tick(), b.tick()]);
    clock = new Date('2026-03-09T14:00:30Z'); // next Monday 09:00:30, now CDT
    await Promise.all([a.tick(), b.tick()]);
    expect(posts('C-weekly')).toHaveLength(2);
    expect((await runs(id)).map((r) => [r.status, r.period_end.toISOString()])).toEqual([
      ['posted', '2026-03-02T15:00:00.000Z'], ['posted', '2026-03-09T14:00:00.000Z'],
    ]);
  });

  it('the leader dies mid-run: another takes over after the lease, still exactly one post', async () => {
    const id = await subscribe('digest daily 08:00 America/Chicago', 'C-crash', '2026-03-21T00:00:00Z');
    let release!: () => void;
    const hanging: DigestContent = { produce: () => new Promise((resolve) => (release = () => resolve({ answer: undefined as never }))) };
    const a = scheduler('a', hanging);
    const b = scheduler('b');
    clock = new Date('2026-03-21T13:00:10Z'); // 08:00:10 CDT
    void a.tick();
    for (let i = 0; i < 500 && !(await runs(id)).length; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await runs(id)).map((r) => r.status)).toEqual(['claimed']);
    a.kill();
    // b becomes the leader at one of its next ticks, once the dead connection's lock is gone;
    // the claim is still fresh, so b does not post it again
    for (let i = 0; i < 500 && !b.isLeader; i++) {
      expect(await b.tick()).toBe(0);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(b.isLeader).toBe(true);
    expect(await b.tick()).toBe(0);
    clock = new Date('2026-03-21T13:11:00Z');
    expect(await b.tick()).toBe(1);
    expect(posts('C-crash')).toHaveLength(1);
    expect((await runs(id)).map((r) => r.status)).toEqual(['posted']);
    void release;
  });

  it('follows the local time across the DST change', async () => {
    const id = await subscribe('digest daily 09:00 America/Chicago', 'C-dst', '2026-03-05T16:00:00Z');
    const a = scheduler('a');
    for (let t = Date.parse('2026-03-06T00:00:00Z'); t <= Date.parse('2026-03-11T00:00:00Z'); t += 3_600_000) {
      clock = new Date(t);
      await a.tick();
    }
    expect((await runs(id)).map((r) => r.period_end.toISOString())).toEqual([
      '2026-03-06T15:00:00.000Z', '2026-03-07T15:00:00.000Z', '2026-03-08T14:00:00.000Z', '2026-03-09T14:00:00.000Z', '2026-03-10T14:00:00.000Z',
    ]);
    expect(posts('C-dst')).toHaveLength(5);
  });

  it('posts a missed period once within the grace window and records older ones as skipped', async () => {
    const id = await subscribe('digest daily 06:00 UTC', 'C-missed', '2026-04-01T00:00:00Z');
    const a = scheduler('a');
    clock = new Date('2026-04-04T09:00:00Z'); // down since before Apr 1 06:00; back 3 hours after Apr 4 06:00
    expect(await a.tick()).toBe(1);
    expect((await runs(id)).map((r) => `${r.period_end.toISOString().slice(0, 10)} ${r.status}`)).toEqual([
      '2026-04-01 skipped', '2026-04-02 skipped', '2026-04-03 skipped', '2026-04-04 posted',
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
    const conversation = '19:digests@thread.tacv2';
    await saveConversationReference(db.pool, {
      conversation: { id: conversation, conversationType: 'channel', isGroup: true, name: 'digests' }, serviceUrl: connector.serviceUrl, channelId: 'msteams',
      bot: { id: '28:datadesk', name: 'Data Desk' }, user: { id: '29:ada', name: 'Ada' },
    }, '19:team@thread.tacv2');
    await subscribe('digest weekly friday 17:00 America/Chicago', conversation, '2026-06-05T00:00:00Z', 'teams');
    const a = scheduler('a');
    clock = new Date('2026-06-05T22:00:30Z'); // Friday 17:00:30 CDT
    expect(await a.tick()).toBe(1);
    const sent = await connector.waitFor((c) => c.conversationId === conversation);
    // botbuilder's proactive send, as in Microsoft's samples (continueConversationAsync + sendActivity)
    expect(['send', 'reply']).toContain(sent.verb);
    expect(String(sent.activity.text)).toMatch(/^Crime digest/);
  });
});

describe('saved-question digests and backtest watches', () => {
  it('re-runs the saved question and the strategy each period, noting what changed', async () => {
    await loadStocks(db.pool, 4, '2022-01-04', '2023-12-29');
    const { desk } = testDesk(db);
    const content = digestContent(db.pool, desk, { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger() });
    await subscribe('digest daily 08:00 UTC How many thefts were reported in 2019?', 'C-saved', '2026-07-01T00:00:00Z');
    await subscribe('digest daily 08:00 UTC 600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe', 'C-watch', '2026-07-01T00:00:00Z');
    const a = scheduler('a', content);
    clock = new Date('2026-07-01T08:00:05Z');
    expect(await a.tick()).toBe(2);
    const thefts = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)).rows[0].n;
    expect(String(posts('C-saved')[0].args.text)).toBe(`Saved question "How many thefts were reported in 2019?": Thefts in 2019, all of Chicago: ${thefts.toLocaleString('en-US')}`);
    expect(String(posts('C-watch')[0].args.text)).toMatch(/^Backtest watch: 600519 Kweichow Moutai Co\., Ltd\.: Sharpe/);
    expect(JSON.stringify(posts('C-watch')[0].args.blocks)).toContain('First run of this watch.');
    clock = new Date('2026-07-02T08:00:05Z');
    expect(await a.tick()).toBe(2);
    expect(JSON.stringify(posts('C-watch')[1].args.blocks)).toContain('No change since last time.');
  });
});

describe('digest labels', () => {
  it("name the period's days in the subscription's own time zone (an evening schedule ends after midnight UTC)", async () => {
    // daily 21:00 America/Chicago: the period from 21:00 on 2019-03-01 to 21:00 on 2019-03-02 (03:00Z the next days)
    const period = { start: new Date('2019-03-02T03:00:00Z'), end: new Date('2019-03-03T03:00:00Z') };
    const answer = await crimeDigest(db.pool, period, 'America/Chicago');
    expect(answer.kind === 'result' && answer.assumptions[0]).toMatch(/^period: 2019-03-01 to 2019-03-02 \(America\/Chicago\)/);
    const berlin = await crimeDigest(db.pool, period, 'Europe/Berlin');
    expect(berlin.kind === 'result' && berlin.assumptions[0]).toMatch(/^period: 2019-03-02 to 2019-03-03 \(Europe\/Berlin\)/);
  });
});

describe('digest commands', () => {
  const ctx = { platform: 'slack' as const, channel: 'C-cmd', userId: 'U1', defaultTimezone: 'America/Chicago' };
  it('subscribes, lists and turns off; bad input stores nothing', async () => {
    const count = async () => (await db.pool.query(`SELECT count(*) AS n FROM digest_subscriptions WHERE channel = 'C-cmd'`)).rows[0].n;
    await expect(digestCommand(db.pool, 'digest weekly monday 09:00 Mars/Olympus', ctx)).rejects.toThrow('Unknown time zone "Mars/Olympus"');
    await expect(digestCommand(db.pool, 'digest cron 0 0 31 2 *', ctx)).rejects.toThrow('never fires');
    await expect(digestCommand(db.pool, 'digest hourly', ctx)).rejects.toThrow('"hourly" is not a schedule');
    expect(await count()).toBe(0);
    const a = await digestCommand(db.pool, 'digest weekly monday 09:00 America/Chicago', ctx);
    expect(a).toMatch(/^Digest #\d+: the crime digest, every Monday at 09:00 \(America\/Chicago\)\. Turn it off with `digest off \d+`\.$/);
    const q = await digestCommand(db.pool, 'digest daily 08:00 How many thefts were reported in 2019?', ctx);
    expect(q).toMatch(/^Digest #\d+: "How many thefts were reported in 2019\?", daily at 08:00 \(America\/Chicago\)/);
    const bt = await digestCommand(db.pool, 'digest cron 0 17 * * 5 UTC 600519 buy: RSI(14) < 30 sell: RSI(14) > 70', ctx);
    expect(bt).toMatch(/a backtest watch of `600519 buy: RSI\(14\) < 30 sell: RSI\(14\) > 70`, cron "0 17 \* \* 5" \(UTC\)/);
    expect((await digestCommand(db.pool, 'digest list', ctx)).split('\n')).toHaveLength(4);
    const id = /#(\d+)/.exec(a)![1];
    expect(await digestCommand(db.pool, `digest off ${id}`, ctx)).toBe(`Digest #${id} is off.`);
    await expect(digestCommand(db.pool, `digest off ${id}`, ctx)).rejects.toThrow(`There is no digest #${id} in this channel`);
  });
});
