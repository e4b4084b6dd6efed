// The Teams bot over real HTTP: Teams-shaped activities POSTed to /api/messages,
// replies going to a fake Bot Framework connector at the activity's serviceUrl,
// the agents on real PostgreSQL behind. With an empty app id the adapter takes
// unauthenticated requests, as the Bot Framework Emulator does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartStore } from '../../../src/charts/chart-store.js';
import { createTeamsAdapter, teamsRoutes } from '../../../src/channels/teams/teams-adapter.js';
import { DataDeskTeamsBot } from '../../../src/channels/teams/teams-bot.js';
import { RateLimiter } from '../../../src/core/rate-limit.js';
import { createLlmClient } from '../../../src/llm/client.js';
import { chartRoutes } from '../../../src/server/chart-routes.js';
import { exportRoutes } from '../../../src/server/export-routes.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { loadStocks } from '../../helpers/stock-data.js';
import { testDesk } from '../../helpers/desk.js';
import { startFakeConnector, type FakeConnector, type ConnectorCall } from '../../helpers/fake-connector.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';
import { pollUntil } from '../../helpers/wait.js';
import { VerifiedStore } from '../../../src/verified/verified-store.js';
import { teamsOutbox } from '../../../src/channels/teams/teams-outbox.js';
import { loadConversationReference } from '../../../src/channels/teams/conversation-store.js';
import type { AnswerJob } from '../../../src/jobs/answer-job.js';
import { createMemoryLogger } from '../../../src/core/logger.js';

let db: TestDatabase;
let connector: FakeConnector;
let llm: FakeLlm;
const servers: RunningServer[] = [];
const runtimes: Jobs[] = [];
/** the running bot's job runtime */
const jobs = () => runtimes.at(-1)!;

async function botServer(
  options: { appId?: string; withLlm?: boolean; curators?: string[]; perMinute?: number; allowedTenants?: string[] } = {},
) {
  const verified = options.curators ? new VerifiedStore(db.pool) : undefined;
  const { desk, logger } = testDesk(db, {
    verified,
    ...(options.withLlm ? { llm: createLlmClient({ baseUrl: llm.baseUrl, model: 'down', maxRetries: 0 }) } : {}),
  });
  const charts = new ChartStore();
  let base = '';
  const adapter = createTeamsAdapter(
    { appId: options.appId ?? '', appPassword: options.appId ? 'secret' : '', tenantId: '', appType: 'MultiTenant' },
    logger,
  );
  // each test's bot is a deployment of its own: the earlier ones' workers (with their own in-process thread memory) stop
  for (const j of runtimes.splice(0)) await j.stop();
  const jobs = await testJobs(db, desk, logger, {
    teams: { adapter, appId: options.appId ?? '' },
    // as serve and worker build them without PUBLIC_BASE_URL: the address Teams reached, else the server's own
    chartLink: (png, reached) => `${reached ?? base}/charts/${charts.put(png)}.png`,
    chartLater: (spec, reached) => `${reached ?? base}/charts/${charts.putLater(spec, ['card'])[0]}.png`,
    exports: true,
    exportLink: (token, reached) => `${reached ?? base}/exports/${token}.csv`,
  });
  runtimes.push(jobs);
  const bot = new DataDeskTeamsBot({
    desk,
    queue: jobs.queue,
    deliveries: jobs.deliveries,
    pool: db.pool,
    logger,
    defaultTimezone: 'America/Chicago',
    gate: {
      userLimit: new RateLimiter(options.perMinute ?? 100),
      channelLimit: new RateLimiter(1_000),
      allowedChannels: [],
      allowedWorkspaces: options.allowedTenants ?? [],
    },
    feedback: verified && { verified, curators: options.curators! },
  });
  const exports = exportRoutes(jobs.deliveries, { pool: db.reader!.pool, rowLimit: 100_000, statementTimeoutMs: 10_000 }, logger, {
    hosts: ['127.0.0.1', 'localhost'],
    perMinute: 100,
  });
  const server = await startHttpServer('127.0.0.1', 0, [teamsRoutes(adapter, bot, logger), chartRoutes(charts), exports], logger);
  base = server.url;
  servers.push(server);
  return server;
}

let seq = 0;
function channelMessage(text: string, extra: Record<string, unknown> = {}) {
  const id = `17000000${String(++seq).padStart(5, '0')}`;
  const conversationId = `19:general${seq}@thread.tacv2;messageid=${id}`;
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
      channelData: {
        teamsChannelId: '19:general@thread.tacv2',
        teamsTeamId: '19:team@thread.tacv2',
        channel: { id: '19:general@thread.tacv2' },
        team: { id: '19:team@thread.tacv2' },
        tenant: { id: 'tenant-1' },
      },
      ...extra,
    },
  };
}

const post = (server: RunningServer, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const cardOf = (c: ConnectorCall) =>
  ((c.activity.attachments as { contentType: string; content: Record<string, unknown> }[] | undefined) ?? [])[0];
const cardText = (c: ConnectorCall) => JSON.stringify(cardOf(c)?.content ?? {});
/** The SQL a card shows: its monospace runs, in order. */
const sqlShown = (c: ConnectorCall) =>
  ((cardOf(c)?.content as { body?: { inlines?: { text: string; fontType?: string }[] }[] })?.body ?? [])
    .flatMap((b) => b.inlines ?? [])
    .filter((run) => run.fontType === 'Monospace')
    .map((run) => run.text);

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
  await loadStocks(db.pool, 4, '2022-01-04', '2023-12-29');
  connector = await startFakeConnector();
  llm = await startFakeLlm();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const j of runtimes) await j.stop();
  await connector?.close();
  await llm?.close();
  await db?.drop();
});

describe('Teams bot (real HTTP, fake Bot Framework connector)', () => {
  it('mention -> typing, "on it", then the answer card in the thread with SQL, table and chart image; reference stored', async () => {
    const server = await botServer();
    const m = channelMessage('How many crimes were reported each year?');
    const res = await post(server, m.activity);
    expect(res.status).toBe(200);
    const typing = connector.calls.find((c) => c.conversationId === m.conversationId && c.activity.type === 'typing');
    expect(typing).toMatchObject({ verb: 'reply', activityId: m.id });
    const onIt = connector.calls.find((c) => c.conversationId === m.conversationId && c.activity.text === 'On it…')!;
    expect(onIt.verb).toBe('reply');
    const update = await connector.waitFor((c) => c.verb === 'update' && c.conversationId === m.conversationId && Boolean(cardOf(c)));
    expect(cardOf(update).contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = cardOf(update).content as { version: string; body: Record<string, unknown>[] };
    expect(card.version).toBe('1.5');
    expect(card.body.find((b) => b.type === 'Table')).toBeTruthy();
    expect(cardText(update)).toContain('10 of 25 rows');
    expect(cardText(update)).toContain('Crimes by year, all of Chicago');
    expect(cardText(update)).toContain('Understood as: crimes · all of Chicago · by year');
    expect(cardText(update)).toContain('SELECT year AS k1');
    // Teams draws the chart from the numbers; its fallback, for a host without charts, is the PNG
    const chart = card.body.find((b) => b.type === 'Chart.Line') as {
      data: { legend: string; values: { x: string; y: number }[] }[];
      fallback: { url: string };
    };
    expect(chart.data[0].values).toHaveLength(25);
    expect(chart.data[0].values[0]).toEqual({ x: '2001', y: expect.any(Number) });
    // nothing drawn while answering: the fallback is a link to the bot's server, drawn when a client fetches it
    const image = chart.fallback;
    expect(image.url).toMatch(new RegExp(`^${server.url}/charts/[0-9a-f]{32}\\.png$`));
    const png = await fetch(image.url);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const { rows } = await db.pool.query(
      'SELECT conversation_type, team_id, reference FROM conversation_references WHERE conversation_id = $1',
      [m.conversationId],
    );
    expect(rows[0]).toMatchObject({ conversation_type: 'channel', team_id: '19:team@thread.tacv2' });
    expect(rows[0].reference.serviceUrl).toBe(connector.serviceUrl);
  });

  it("with TEAMS_ALLOWED_TENANTS, another tenant gets one sentence and nothing is queued; the allowed tenant's questions are its own", async () => {
    const server = await botServer({ allowedTenants: ['tenant-1'] });
    const other = channelMessage('How many crimes were reported in 2019?');
    const foreign = {
      ...other.activity,
      conversation: { ...other.activity.conversation, tenantId: 'tenant-9' },
      channelData: { ...other.activity.channelData, tenant: { id: 'tenant-9' } },
    };
    expect((await post(server, foreign)).status).toBe(200);
    const refused = await connector.waitFor((c) => c.conversationId === other.conversationId && typeof c.activity.text === 'string');
    expect(refused.activity.text).toBe(
      'Data Desk is not enabled for your organization; ask the person who runs it to add your tenant or workspace.',
    );
    expect(await jobs().deliveries.get(`teams:activity:${other.id}`)).toBeUndefined();
    const mine = channelMessage('How many crimes were reported in 2019?');
    await post(server, mine.activity);
    await connector.waitFor((c) => c.verb === 'update' && c.conversationId === mine.conversationId && Boolean(cardOf(c)));
    // the card is sent before the delivery is marked answered
    const row = await pollUntil(
      async () => {
        const r = await jobs().deliveries.get(`teams:activity:${mine.id}`);
        return r?.status === 'answered' ? r : undefined;
      },
      10_000,
      'the delivery answered',
    );
    expect(row.workspace).toBe('tenant-1');
  });

  it('clarification: Action.Execute buttons; what a click gets back (taken, not yours, gone) is said to the clicker only', async () => {
    const server = await botServer();
    const m = channelMessage('How many robberies happened at night in 2019?');
    await post(server, m.activity);
    const question = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('Action.Execute'));
    const questionId = question.activityId ?? (question.activity.id as string);
    const actions = (cardOf(question).content as { actions: { type: string; verb: string; data: unknown; fallback: unknown }[] }).actions;
    expect(actions.map((a) => a.data)).toEqual([
      { datadesk: 'clarify', term: 'night', option: '22-06' },
      { datadesk: 'clarify', term: 'night', option: '20-06' },
      { datadesk: 'clarify', term: 'night', option: '18-06' },
    ]);
    expect(actions[0]).toMatchObject({
      type: 'Action.Execute',
      verb: 'clarify',
      fallback: { type: 'Action.Submit', data: actions[0].data },
    });
    // a question back is not an AI-generated answer: no "AI generated" label, no 👍/👎 under it (issue 33)
    expect(question.activity.channelData ?? {}).not.toMatchObject({ feedbackLoopEnabled: true });
    expect(JSON.stringify(question.activity.entities ?? [])).not.toContain('AIGeneratedContent');
    expect(cardText(question)).not.toContain('"datadesk":"feedback"');
    const execute = (from: Record<string, string>, data: unknown, n: string) => ({
      ...m.activity,
      type: 'invoke',
      name: 'adaptiveCard/action',
      id: `${m.id}${n}`,
      from,
      text: undefined,
      entities: [],
      replyToId: questionId,
      value: { action: { type: 'Action.Execute', verb: 'clarify', data }, trigger: 'manual' },
    });
    const said = async (res: Response) => {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { statusCode: number; type: string; value: string };
      expect(body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.activity.message' });
      return body.value;
    };
    const before = connector.calls.length;
    const inChannel = () =>
      connector.calls.slice(before).filter((c) => c.conversationId === m.conversationId && c.activity.type === 'message');
    // someone else's click: told privately, nothing queued, nothing in the channel
    const bob = { id: '29:user-bob', name: 'Bob', aadObjectId: 'aad-bob' };
    expect(await said(await post(server, execute(bob, actions[0].data, 'b')))).toMatch(/^Someone else asked this question/);
    expect(inChannel()).toEqual([]);
    // the asker's click: taken, and the answer follows in the conversation
    const ada = m.activity.from as Record<string, string>;
    expect(await said(await post(server, execute(ada, actions[2].data, 'a')))).toBe('Got it: the answer follows in this conversation.');
    const answer = await connector.waitFor(
      (c) => c.conversationId === m.conversationId && cardText(c).includes('Assumptions: night: 18:00-06:00'),
    );
    expect(cardText(answer)).toContain('extract(hour FROM date) >= 18');
    // a second click once answered: gone, said to the clicker alone
    const settled = connector.calls.length;
    expect(await said(await post(server, execute(ada, actions[0].data, 'c')))).toMatch(/^That question was already answered/);
    await new Promise((r) => setTimeout(r, 300));
    expect(connector.calls.slice(settled).filter((c) => c.conversationId === m.conversationId)).toEqual([]);
    // a client with Action.Submit only (the fallback): the refusal comes as a message
    await post(server, { ...m.activity, id: `${m.id}8`, text: undefined, entities: [], value: actions[1].data });
    await connector.waitFor(
      (c) =>
        c.conversationId === m.conversationId &&
        c.activity.text === 'That question was already answered or has expired. Ask it again to get fresh choices.',
    );
  });

  /** A message in a personal (1:1) chat with the bot. */
  function personalMessage(text: string) {
    const m = channelMessage(text);
    const conversationId = `a:personal-${m.id}`;
    const activity = {
      ...m.activity,
      conversation: { id: conversationId, conversationType: 'personal', tenantId: 'tenant-1' },
      text,
      entities: [],
      channelData: { tenant: { id: 'tenant-1' } },
    };
    return { id: m.id, conversationId, activity };
  }
  const streamOf = (c: ConnectorCall) =>
    ((c.activity.entities as { type: string; streamId?: string; streamType?: string; streamSequence?: number }[] | undefined) ?? []).find(
      (e) => e.type === 'streaminfo',
    );

  it('in a personal chat the answer streams: the wait and each step as informative updates, then the card as the final message', async () => {
    const server = await botServer({ curators: ['aad-ada'] });
    const m = personalMessage('Which 5 community areas had the most thefts in 2019?');
    expect((await post(server, m.activity)).status).toBe(200);
    const final = await connector.waitFor((c) => c.conversationId === m.conversationId && streamOf(c)?.streamType === 'final', 20_000);
    const inChat = connector.calls.filter((c) => c.conversationId === m.conversationId);
    const start = inChat.find((c) => streamOf(c) && !streamOf(c)!.streamId)!;
    expect(start.activity).toMatchObject({ type: 'typing', text: 'On it…' });
    expect(streamOf(start)).toEqual({ type: 'streaminfo', streamType: 'informative', streamSequence: 1 });
    const streamId = start.activityId!;
    // the steps, in order, on the same stream; the final has no sequence number
    const updates = inChat.filter((c) => streamOf(c)?.streamType === 'informative' && streamOf(c)!.streamId === streamId);
    const sequence = updates.map((c) => streamOf(c)!.streamSequence!);
    expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
    expect(sequence[0]).toBeGreaterThan(1);
    expect(streamOf(final)).toEqual({ type: 'streaminfo', streamType: 'final', streamId });
    // the final is the answer card, with Teams' native chart (bars: upright, or lying down for long names), the feedback
    // loop and the AI label
    expect(cardText(final)).toMatch(/"type":"Chart\.(Vertical|Horizontal)Bar"/);
    expect(final.activity.channelData).toMatchObject({ feedbackLoopEnabled: true });
    expect(JSON.stringify(final.activity.entities)).toContain('AIGeneratedContent');
    // what stays in the chat is that one message (no "on it", no typing)
    const key = `teams:activity:${m.id}`;
    await expect.poll(async () => (await jobs().deliveries.get(key))?.status, { timeout: 15_000 }).toBe('answered');
    expect(connector.messagesIn(m.conversationId)).toEqual([final]);
    // its 👍 (the feedback loop, on the message of the stream's id) is kept against this answer
    const like = await post(server, {
      ...m.activity,
      type: 'invoke',
      name: 'message/submitAction',
      id: `${m.id}like`,
      from: { id: '29:user-cy', name: 'Cy', aadObjectId: 'aad-cy' },
      replyToId: streamId,
      value: { actionName: 'feedback', actionValue: { reaction: 'like', feedback: '{}' } },
    });
    expect(like.status).toBe(200);
    const { rows } = await db.pool.query(`SELECT verdict FROM feedback WHERE delivery_key = $1`, [key]);
    expect(rows).toEqual([{ verdict: 'up' }]);
  });

  it('a stream Teams ended (its two minutes passed) gets the answer as a plain message; a retried final updates the one that arrived', async () => {
    const server = await botServer();
    connector.streamCapMs = 0;
    try {
      const m = personalMessage('How many thefts were reported in 2019?');
      await post(server, m.activity);
      const answer = await connector.waitFor(
        (c) => c.conversationId === m.conversationId && c.activity.type === 'message' && cardText(c).includes('Thefts in 2019'),
        20_000,
      );
      expect(streamOf(answer)).toBeUndefined();
      await new Promise((r) => setTimeout(r, 300));
      expect(connector.messagesIn(m.conversationId)).toEqual([answer]);
    } finally {
      connector.streamCapMs = 120_000;
    }
    // a worker that sent the final and died before recording it: the next attempt updates that message, no second one
    const m = personalMessage('How many thefts were reported in 2018?');
    await post(server, m.activity);
    const key = `teams:activity:${m.id}`;
    await expect.poll(async () => (await jobs().deliveries.get(key))?.status, { timeout: 15_000 }).toBe('answered');
    const delivery = (await jobs().deliveries.get(key))!;
    expect(delivery.placeholder).toMatchObject({ stream: '1' });
    const reference = (await loadConversationReference(db.pool, m.conversationId))!;
    const job = {
      key,
      message: { platform: 'teams', threadId: `teams:tenant-1:${m.conversationId}`, text: 'x' },
      action: { type: 'answer' },
      reply: { platform: 'teams', conversationId: m.conversationId, reference: reference as Record<string, unknown> },
    } satisfies AnswerJob;
    const sink = await teamsOutbox({
      adapter: createTeamsAdapter({ appId: '', appPassword: '', tenantId: '', appType: 'MultiTenant' }, createMemoryLogger()),
      appId: '',
      pool: db.pool,
      deliveries: jobs().deliveries,
      chartLink: () => 'http://127.0.0.1/none.png',
      logger: createMemoryLogger(),
    }).replies(job, { ...delivery, steps: ['final:started'] });
    const before = connector.calls.length;
    await sink.deliver(delivery.answer!, { done: () => false, record: async () => undefined });
    const again = connector.calls.slice(before);
    expect(again.map((c) => c.verb)).toEqual(['update']);
    expect(again[0].activityId).toBe(delivery.placeholder!.id);
    expect(connector.messagesIn(m.conversationId)).toHaveLength(1);
  });

  it("a follow-up click asks the plan it carries and counts against the asker's limit as half a question", async () => {
    const server = await botServer({ perMinute: 2 });
    const m = channelMessage('How many thefts were reported in 2018?');
    await post(server, m.activity);
    const card = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('"followup"'));
    const actions = (cardOf(card).content as { actions: { title: string; data: { datadesk?: string } }[] }).actions.filter(
      (a) => a.data?.datadesk === 'followup',
    );
    expect(actions.map((a) => a.title)).toEqual(['by month', 'compare with 2017', 'only arrests']);
    await post(server, { ...m.activity, id: `${m.id}7`, text: undefined, entities: [], value: actions[0].data });
    await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('Thefts by month in 2018'));
    // a question and three clicks within the minute are two questions' worth: the third click is told to wait, not answered
    await post(server, { ...m.activity, id: `${m.id}6`, text: undefined, entities: [], value: actions[2].data });
    await post(server, { ...m.activity, id: `${m.id}5`, text: undefined, entities: [], value: actions[1].data });
    await connector.waitFor(
      (c) => c.conversationId === m.conversationId && /^You are asking faster than I can answer well/.test(String(c.activity.text ?? '')),
    );
  });

  it("Teams' own 👍/👎 under an answer (the feedback loop): kept, a curator's 👍 verifies, nothing posted", async () => {
    const server = await botServer({ curators: ['aad-ada'] });
    const m = channelMessage('Which blocks had the most deceptive practice cases?');
    await post(server, m.activity);
    const answer = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('deceptive'));
    expect(answer.activity.channelData).toMatchObject({ feedbackLoopEnabled: true });
    // Teams' "AI generated" label, with every field of its entity (the serializer keeps them, entity-fields.ts)
    expect(answer.activity.entities).toContainEqual(
      expect.objectContaining({
        type: 'https://schema.org/Message',
        '@type': 'Message',
        '@context': 'https://schema.org',
        additionalType: ['AIGeneratedContent'],
      }),
    );
    // no 👍/👎 of our own on the card: Teams draws them
    expect(cardText(answer)).not.toContain('"datadesk":"feedback"');
    const answerId = answer.activityId ?? (answer.activity.id as string);
    expect(answerId).toBeTruthy();
    const invoke = (user: { id: string; aadObjectId: string }, reaction: string) => ({
      ...m.activity,
      type: 'invoke',
      name: 'message/submitAction',
      id: `${m.id}${reaction}${user.aadObjectId}`,
      from: { ...user, name: 'x' },
      text: undefined,
      entities: [],
      replyToId: answerId,
      value: { actionName: 'feedback', actionValue: { reaction, feedback: '{"feedbackText":"the numbers look off"}' } },
    });
    const callsBefore = connector.calls.length;
    const down = await post(server, invoke({ id: '29:user-bob', aadObjectId: 'aad-bob' }, 'dislike'));
    expect(down.status).toBe(200);
    const up = await post(server, invoke({ id: '29:user-ada', aadObjectId: 'aad-ada' }, 'like'));
    expect(up.status).toBe(200);
    const { rows } = await db.pool.query(`SELECT user_id, verdict FROM feedback WHERE user_id IN ('aad-ada', 'aad-bob') ORDER BY user_id`);
    expect(rows).toEqual([
      { user_id: 'aad-ada', verdict: 'up' },
      { user_id: 'aad-bob', verdict: 'down' },
    ]);
    // nothing was said in the channel about it
    expect(connector.calls.slice(callsBefore).filter((c) => c.conversationId === m.conversationId)).toEqual([]);
    const again = channelMessage('which blocks had the most DECEPTIVE PRACTICE cases');
    await post(server, again.activity);
    const verifiedCard = await connector.waitFor(
      (c) => c.conversationId === again.conversationId && cardText(c).includes('Verified answer'),
    );
    expect(cardText(verifiedCard)).toContain('checked by teams:aad-ada');
  });

  it('an answer cites its SQL: one Message entity with the AI label and a Claim at [1], referred to by the text and the card', async () => {
    const server = await botServer();
    const m = channelMessage('Which community areas had the most burglaries in 2020?');
    await post(server, m.activity);
    const answer = await connector.waitFor((c) => c.verb === 'update' && c.conversationId === m.conversationId && Boolean(cardOf(c)));
    const messages = (answer.activity.entities as Record<string, unknown>[]).filter((e) => e.type === 'https://schema.org/Message');
    // Teams refuses a message with more than one root Message entity: the label and the citation are one
    expect(messages).toHaveLength(1);
    const [entity] = messages as {
      additionalType: string[];
      citation: { '@type': string; position: number; appearance: Record<string, unknown> }[];
    }[];
    expect(entity.additionalType).toEqual(['AIGeneratedContent']);
    expect(entity.citation).toHaveLength(1);
    const [claim] = entity.citation;
    expect(claim).toMatchObject({ '@type': 'Claim', position: 1, appearance: { '@type': 'DigitalDocument' } });
    const a = claim.appearance as {
      name: string;
      abstract: string;
      keywords: string[];
      text: string;
      encodingFormat: string;
      image: unknown;
    };
    expect(a.name.length).toBeLessThanOrEqual(80);
    expect(a.abstract.length).toBeLessThanOrEqual(160);
    expect(a.abstract).toContain('Which community areas had the most burglaries in 2020?');
    expect(a.abstract).toMatch(/Ran on [a-z_, ]*crimes/);
    expect(a.abstract).toMatch(/crimes through \d{4}-\d{2}-\d{2}/);
    expect(a.keywords.length).toBeLessThanOrEqual(3);
    for (const k of a.keywords) expect(k.length).toBeLessThanOrEqual(28);
    expect(a.encodingFormat).toBe('application/vnd.microsoft.card.adaptive');
    expect(a.image).toEqual({ '@type': 'ImageObject', name: 'Source Code' });
    // the modal window's card: the question, the table, the freshness and the SQL that ran, with no action
    const modal = JSON.parse(a.text) as { type: string; actions?: unknown[] };
    expect(modal.type).toBe('AdaptiveCard');
    expect(modal.actions).toBeUndefined();
    const sql = cardOf(answer).content as { body: { inlines?: { text: string; fontType?: string }[] }[] };
    const cardSql = sql.body.flatMap((b) => b.inlines ?? []).find((r) => r.fontType === 'Monospace')!.text;
    expect(a.text).toContain(JSON.stringify(cardSql.split('\n')[0]).slice(1, -1));
    expect(a.text).toContain('Which community areas had the most burglaries in 2020?');
    expect(a.text).toMatch(/crimes through \d{4}-\d{2}-\d{2}/);
    // the message text (where Teams draws the in-text citation) and the card's headline say [1]
    expect(String(answer.activity.text)).toMatch(/ \[1\]$/);
    expect(cardText(answer)).toContain('"text":" [1]"');
  });

  /** Teams' conversationUpdate when someone (the bot, `memberId`) is added to a conversation. */
  function added(conversation: Record<string, unknown>, memberId = '28:datadesk', extra: Record<string, unknown> = {}) {
    return {
      type: 'conversationUpdate',
      id: `f:${++seq}`,
      timestamp: new Date().toISOString(),
      serviceUrl: connector.serviceUrl,
      channelId: 'msteams',
      from: { id: '29:user-ada', name: 'Ada', aadObjectId: 'aad-ada' },
      conversation: { tenantId: 'tenant-1', ...conversation },
      recipient: { id: '28:datadesk', name: 'Data Desk' },
      membersAdded: [{ id: memberId }],
      channelData: { tenant: { id: 'tenant-1' } },
      ...extra,
    };
  }
  const welcomes = (conversationId: string) =>
    connector.calls.filter((c) => c.conversationId === conversationId && cardText(c).includes('Hi, I am Data Desk'));

  it('the bot added to a personal chat or a team says what it does, once per conversation; an example button asks its question', async () => {
    const server = await botServer();
    const personal = `a:welcome-personal-${++seq}`;
    expect((await post(server, added({ id: personal, conversationType: 'personal' }))).status).toBe(200);
    const card = await connector.waitFor((c) => c.conversationId === personal && cardText(c).includes('Hi, I am Data Desk'));
    const content = cardOf(card).content as { body: unknown[]; actions: { type: string; title: string; data: Record<string, unknown> }[] };
    expect(cardText(card)).toContain("I answer questions about Chicago's reported crimes");
    expect(cardText(card)).toContain('backtest help');
    expect(content.actions.map((a) => a.title)).toEqual([
      'Which community areas had the most burglaries in 2020?',
      'How many crimes were there per month in 2019?',
      'Which crime types had the highest arrest rate in 2019?',
    ]);
    for (const a of content.actions) expect(a).toMatchObject({ type: 'Action.Submit', data: { datadesk: 'followup', text: a.title } });
    // no AI label on it: it is no answer
    expect(JSON.stringify(card.activity.entities ?? [])).not.toContain('AIGeneratedContent');
    // the bot removed and added again in the same chat, or Teams sending the update twice: no second welcome
    await post(server, added({ id: personal, conversationType: 'personal' }));
    const team = `19:welcome-team-${++seq}@thread.tacv2`;
    // the bot added to a team: its General channel is welcomed, with the mention a channel needs
    await post(
      server,
      added({ id: team, conversationType: 'channel' }, '28:datadesk', { channelData: { tenant: { id: 'tenant-1' }, team: { id: team } } }),
    );
    const teamCard = await connector.waitFor((c) => c.conversationId === team && cardText(c).includes('Hi, I am Data Desk'));
    expect(cardText(teamCard)).toContain('Mention @Data Desk');
    // a person joining the team later is no welcome
    await post(
      server,
      added({ id: team, conversationType: 'channel' }, '29:user-bob', { channelData: { tenant: { id: 'tenant-1' }, team: { id: team } } }),
    );
    expect(welcomes(personal)).toHaveLength(1);
    expect(welcomes(team)).toHaveLength(1);
    // a click on an example question is asked like a follow-up button, in the welcome's thread; each person's is answered
    const teamActions = (cardOf(teamCard).content as typeof content).actions;
    const click = (who: string, id: string) => ({
      ...added({ id: `${team};messageid=${teamCard.activityId}`, conversationType: 'channel' }, '28:datadesk', {
        channelData: { tenant: { id: 'tenant-1' }, team: { id: team } },
      }),
      type: 'message',
      id,
      from: { id: `29:${who}`, name: who, aadObjectId: `aad-${who}` },
      replyToId: teamCard.activityId,
      value: teamActions[1].data,
      membersAdded: undefined,
    });
    await post(server, click('ada', `${seq}click1`));
    await post(server, click('cy', `${seq}click2`));
    const answered = () =>
      new Set(
        connector.calls.filter((c) => c.conversationId.startsWith(`${team};`) && cardText(c).includes('SELECT')).map((c) => c.activityId),
      ).size;
    await expect.poll(answered, { timeout: 20_000 }).toBe(2);
  });

  it('a tenant not on TEAMS_ALLOWED_TENANTS is not welcomed', async () => {
    const server = await botServer({ allowedTenants: ['tenant-1'] });
    const personal = `a:welcome-foreign-${++seq}`;
    const update = added({ id: personal, conversationType: 'personal', tenantId: 'tenant-9' }, '28:datadesk', {
      channelData: { tenant: { id: 'tenant-9' } },
    });
    expect((await post(server, update)).status).toBe(200);
    expect(welcomes(personal)).toEqual([]);
  });

  it("a table card links to all its rows as CSV (an unguessable link on the bot's server)", async () => {
    const server = await botServer();
    const m = channelMessage('Which blocks had the most criminal damage cases?');
    await post(server, m.activity);
    const card = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('Download CSV'));
    const link = (cardOf(card).content as { actions: { type: string; title: string; url?: string }[] }).actions.find(
      (a) => a.title === 'Download CSV',
    )!;
    expect(link.type).toBe('Action.OpenUrl');
    expect(link.url).toMatch(new RegExp(`^${server.url}/exports/[0-9a-f]{32}\\.csv$`));
    const csv = (await (await fetch(link.url!)).text()).trim().split(/\r?\n/);
    const { rows } = await db.pool.query(`SELECT count(DISTINCT block)::int AS n FROM crimes WHERE primary_type = 'CRIMINAL DAMAGE'`);
    expect(csv.length - 1).toBe(rows[0].n);
    expect((await fetch(`${server.url}/exports/${'0'.repeat(32)}.csv`)).status).toBe(404);

    // behind a proxy, without PUBLIC_BASE_URL: the links use the address Teams reached the bot at, not its own port
    const proxied = channelMessage('Which blocks had the most criminal damage cases?');
    await post(server, proxied.activity, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'datadesk.example.org' });
    const viaProxy = await connector.waitFor((c) => c.conversationId === proxied.conversationId && cardText(c).includes('Download CSV'));
    expect(cardText(viaProxy)).toMatch(/"url":"https:\/\/datadesk\.example\.org\/exports\/[0-9a-f]{32}\.csv"/);
    // a Host that is no host name is not believed
    const odd = channelMessage('Which blocks had the most criminal damage cases?');
    await post(server, odd.activity, { 'x-forwarded-host': 'evil.example/"><script>' });
    const plain = await connector.waitFor((c) => c.conversationId === odd.conversationId && cardText(c).includes('Download CSV'));
    expect(cardText(plain)).toContain(`"url":"${server.url}/exports/`);
  });

  it('the backtest command answers with the backtest card', async () => {
    const server = await botServer();
    const m = channelMessage('backtest 600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe');
    await post(server, m.activity);
    const answer = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('Kweichow Moutai'));
    expect(cardText(answer)).toContain('FROM shanghai_stock_exchange');
  });

  it('a malformed activity gets 400 and nothing runs', async () => {
    const server = await botServer();
    const before = connector.calls.length;
    expect((await post(server, '{not json')).status).toBe(400);
    const noService = channelMessage('How many thefts were reported in 2019?');
    const res = await post(server, { ...noService.activity, serviceUrl: undefined });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Malformed activity: the activity has no serviceUrl.' });
    await new Promise((r) => setTimeout(r, 200));
    expect(connector.calls.length).toBe(before);
  });

  it('the LLM failing becomes a clear reply', async () => {
    const server = await botServer({ withLlm: true });
    llm.script.push({ status: 500 }, { status: 500 });
    const m = channelMessage('Which crimes tend to cluster within an hour of each other?');
    await post(server, m.activity);
    const answer = await connector.waitFor((c) => c.conversationId === m.conversationId && cardText(c).includes('language model'));
    expect(answer.activity.text).toMatch(/^The language model could not help with this just now/);
  });

  it('answers Teams at once and the card later (proactively); a redelivered activity is answered once', async () => {
    const server = await botServer({ withLlm: true });
    llm.script.splice(0);
    // a model that takes 3 s: the HTTP call must not wait for it
    llm.respond = () => ({ content: JSON.stringify({ sql: 'SELECT count(*) AS crimes FROM crimes' }), delayMs: 3_000 });
    try {
      const m = channelMessage('Which crimes tend to cluster within an hour of each other?');
      const started = Date.now();
      const [first, again] = await Promise.all([post(server, m.activity), post(server, m.activity)]);
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(Date.now() - started).toBeLessThan(2_500);
      expect(connector.calls.filter((c) => c.conversationId === m.conversationId && cardOf(c))).toEqual([]);
      const card = await connector.waitFor((c) => c.conversationId === m.conversationId && Boolean(cardOf(c)), 20_000);
      expect(card.verb).toBe('update');
      // the SQL that ran: the model's count moved onto a rollup that holds it, saying which table answered
      const [sql] = sqlShown(card);
      expect(sql).toMatch(/^-- answered from (crimes_\w+) \(the same counts as crimes, pre-aggregated\)\nSELECT .*\bAS crimes FROM \1$/s);
      const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM crimes');
      expect(cardText(card)).toContain(Number(rows[0].n).toLocaleString('en-US'));
      await new Promise((r) => setTimeout(r, 1_000));
      expect(connector.calls.filter((c) => c.conversationId === m.conversationId && cardOf(c))).toHaveLength(1);
      expect(connector.calls.filter((c) => c.conversationId === m.conversationId && c.activity.text === 'On it…')).toHaveLength(1);
    } finally {
      llm.respond = undefined;
    }
  });

  it('with a real app id, a request without a valid token gets 401', async () => {
    const server = await botServer({ appId: '00000000-0000-0000-0000-000000000001' });
    const before = connector.calls.length;
    const m = channelMessage('How many thefts were reported in 2019?');
    expect((await post(server, m.activity)).status).toBe(401);
    expect((await post(server, m.activity, { authorization: 'Bearer not-a-jwt' })).status).toBe(401);
    expect(connector.calls.length).toBe(before);
  });
});

describe('datadesk teams package', () => {
  it('zips the manifest with the app id and domain filled in, and the two icons', async () => {
    const { buildTeamsPackage } = await import('../../../src/cli/commands/teams-package.js');
    const AdmZip = (await import('adm-zip')).default;
    const zip = new AdmZip(
      buildTeamsPackage({
        appId: '11111111-2222-3333-4444-555555555555',
        domain: 'datadesk.example.com',
        links: {
          websiteUrl: 'https://datadesk.example.com/teams',
          privacyUrl: 'https://corp.example.com/privacy?a=1&b="2"',
          termsOfUseUrl: 'https://datadesk.example.com/teams/terms',
        },
      }),
    );
    expect(
      zip
        .getEntries()
        .map((e) => e.entryName)
        .sort(),
    ).toEqual(['color.png', 'manifest.json', 'outline.png']);
    const manifest = JSON.parse(zip.readAsText('manifest.json'));
    expect(manifest.id).toBe('11111111-2222-3333-4444-555555555555');
    expect(manifest.bots[0].botId).toBe('11111111-2222-3333-4444-555555555555');
    expect(manifest.bots[0].scopes).toEqual(['personal', 'team', 'groupChat']);
    expect(manifest.bots[0].commandLists[0].commands.map((c: { title: string }) => c.title)).toEqual(['backtest', 'help', 'digest']);
    expect(manifest.validDomains).toEqual(['datadesk.example.com']);
    expect(manifest.developer).toEqual({
      name: 'Data Desk',
      websiteUrl: 'https://datadesk.example.com/teams',
      privacyUrl: 'https://corp.example.com/privacy?a=1&b="2"',
      termsOfUseUrl: 'https://datadesk.example.com/teams/terms',
    });
    expect(zip.readFile('color.png')!.subarray(1, 4).toString()).toBe('PNG');
  });
});
