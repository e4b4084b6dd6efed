// "Re-run" in Teams (issue 36, part 5), over real HTTP against the fake
// connector: a plan answer's card has an Action.Execute "Re-run" carrying what
// Slack's button carries (core/rerun.ts); a click asks the plan again in the
// conversation, whose answer says what changed since, and what the click gets
// back (taken, already re-run today, a stale value) is said to the clicker
// alone. A client with Action.Submit only (the fallback) gets the same answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeamsAdapter, teamsRoutes } from '../../../src/channels/teams/teams-adapter.js';
import { DataDeskTeamsBot } from '../../../src/channels/teams/teams-bot.js';
import { RateLimiter } from '../../../src/core/rate-limit.js';
import { decodeRerun } from '../../../src/core/rerun.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { startFakeConnector, type FakeConnector, type ConnectorCall } from '../../helpers/fake-connector.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';

let db: TestDatabase;
let connector: FakeConnector;
const servers: RunningServer[] = [];
const runtimes: Jobs[] = [];
const today = () => new Date().toISOString().slice(0, 10);

async function botServer() {
  const { desk, logger } = testDesk(db);
  const adapter = createTeamsAdapter({ appId: '', appPassword: '', tenantId: '', appType: 'MultiTenant' }, logger);
  const jobs = await testJobs(db, desk, logger, { teams: { adapter, appId: '' } });
  runtimes.push(jobs);
  const bot = new DataDeskTeamsBot({
    desk,
    queue: jobs.queue,
    deliveries: jobs.deliveries,
    pool: db.pool,
    logger,
    defaultTimezone: 'America/Chicago',
    gate: { userLimit: new RateLimiter(100), channelLimit: new RateLimiter(1_000), allowedChannels: [], allowedWorkspaces: [] },
  });
  const server = await startHttpServer('127.0.0.1', 0, [teamsRoutes(adapter, bot, logger)], logger);
  servers.push(server);
  return server;
}

let seq = 0;
function channelMessage(text: string) {
  const id = `17100000${String(++seq).padStart(5, '0')}`;
  const conversationId = `19:rerun${seq}@thread.tacv2;messageid=${id}`;
  return {
    id,
    conversationId,
    activity: {
      type: 'message',
      id,
      timestamp: new Date().toISOString(),
      serviceUrl: connector.serviceUrl,
      channelId: 'msteams',
      from: { id: '29:user-ada', name: 'Ada', aadObjectId: 'aad-ada' },
      conversation: { id: conversationId, conversationType: 'channel', isGroup: true, tenantId: 'tenant-1' },
      recipient: { id: '28:datadesk', name: 'Data Desk' },
      text: `<at>Data Desk</at> ${text}`,
      entities: [{ type: 'mention', mentioned: { id: '28:datadesk', name: 'Data Desk' }, text: '<at>Data Desk</at>' }],
      channelData: { team: { id: '19:team@thread.tacv2' }, channel: { id: '19:general@thread.tacv2' }, tenant: { id: 'tenant-1' } },
    } as Record<string, unknown>,
  };
}

const post = (server: RunningServer, body: unknown) =>
  fetch(`${server.url}/api/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const cardOf = (c: ConnectorCall) =>
  ((c.activity.attachments as { contentType: string; content: Record<string, unknown> }[] | undefined) ?? [])[0];
const cardText = (c: ConnectorCall) => JSON.stringify(cardOf(c)?.content ?? {});
type Action = { type: string; title: string; verb?: string; data?: { datadesk?: string; rerun?: string }; fallback?: unknown };

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  connector = await startFakeConnector();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const j of runtimes) await j.stop();
  await connector?.close();
  await db?.drop();
});

describe('Re-run in Teams', () => {
  it('an Action.Execute on a plan answer asks the plan again in the conversation, with what changed since; a double click asks once', async () => {
    const server = await botServer();
    const m = channelMessage('How many thefts were reported in 2018?');
    await post(server, m.activity);
    const answer = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('"datadesk":"rerun"'));
    const answerId = answer.activityId ?? (answer.activity.id as string);
    const actions = (cardOf(answer).content as { actions: Action[] }).actions;
    const rerun = actions.find((a) => a.data?.datadesk === 'rerun')!;
    expect(rerun).toMatchObject({
      type: 'Action.Execute',
      verb: 'rerun',
      title: 'Re-run',
      fallback: { type: 'Action.Submit', data: rerun.data },
    });
    // what Slack's button carries: the plan and the numbers then
    const value = decodeRerun(rerun.data!.rerun!)!;
    const figure = /: ([\d,]+)$/.exec(String(answer.activity.text ?? '').replace(/\s*\[1\]$/, ''))?.[1];
    expect(figure).toBeDefined();
    expect(value.baseline).toMatchObject({ figures: [figure], rows: 1, on: today() });
    expect(value.plan).toBeTruthy();

    const execute = (n: string, data: unknown) => ({
      ...m.activity,
      type: 'invoke',
      name: 'adaptiveCard/action',
      id: `${m.id}${n}`,
      from: { id: '29:user-bob', name: 'Bob', aadObjectId: 'aad-bob' },
      text: undefined,
      entities: [],
      replyToId: answerId,
      value: { action: { type: 'Action.Execute', verb: 'rerun', data }, trigger: 'manual' },
    });
    const said = async (res: Response) => {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { statusCode: number; type: string; value: string };
      expect(body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.activity.message' });
      return body.value;
    };
    const [first, second] = await Promise.all([post(server, execute('a', rerun.data)), post(server, execute('b', rerun.data))]);
    expect([await said(first), await said(second)].sort()).toEqual([
      'Re-running on today’s data: the new answer follows in this conversation.',
      'That answer was re-run today already; the new answer is in this conversation.',
    ]);
    const again = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes(`Re-run on ${today()}:`));
    expect(cardText(again)).toContain(`Re-run on ${today()}: ${figure} (was ${figure} on ${today()}: no change, the same data).`);
    expect(cardText(again)).toContain('Thefts in 2018');
    // the re-run is answered once
    await new Promise((r) => setTimeout(r, 300));
    expect(
      connector.calls.filter((c) => c.conversationId === m.conversationId && cardText(c).includes(`Re-run on ${today()}:`)),
    ).toHaveLength(1);

    // a value that is not a re-run's: told to the clicker, nothing asked
    expect(await said(await post(server, execute('c', { datadesk: 'rerun', rerun: '{"p":1}' })))).toBe(
      'That Re-run button is from an older message; ask the question again.',
    );
  });

  it('a client with Action.Submit only (the fallback) gets the re-run as a message in the conversation', async () => {
    const server = await botServer();
    const m = channelMessage('How many thefts were reported in 2019?');
    await post(server, m.activity);
    const answer = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('"datadesk":"rerun"'));
    const rerun = (cardOf(answer).content as { actions: Action[] }).actions.find((a) => a.data?.datadesk === 'rerun')!;
    await post(server, {
      ...m.activity,
      id: `${m.id}s`,
      text: undefined,
      entities: [],
      replyToId: answer.activityId ?? answer.activity.id,
      value: rerun.data,
    });
    const again = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes(`Re-run on ${today()}:`));
    expect(cardText(again)).toContain('Thefts in 2019');
    // a stale value by Submit: said in the conversation
    await post(server, { ...m.activity, id: `${m.id}t`, text: undefined, entities: [], value: { datadesk: 'rerun', rerun: 'nope' } });
    await connector.waitFor(
      (c) =>
        c.conversationId === m.conversationId && c.activity.text === 'That Re-run button is from an older message; ask the question again.',
    );
  });
});
