// The Slack app over real HTTP: signed events, commands and actions POSTed to
// the bot's /slack/events, Bolt's Web API client pointed at a fake Slack, the
// agents on real PostgreSQL behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createSlackApp } from '../../../src/channels/slack/slack-app.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createLlmClient } from '../../../src/llm/client.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { loadStocks } from '../../helpers/stock-data.js';
import { testDesk } from '../../helpers/desk.js';
import { botClient, buttonClick, slackSignature, startFakeSlack, type FakeSlack, type SlackCall } from '../../helpers/fake-slack.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';
import { pollUntil } from '../../helpers/wait.js';
import { VerifiedStore } from '../../../src/verified/verified-store.js';
import { blockKitProblems, viewProblems } from '../../helpers/block-kit-limits.js';
import { UNKNOWN_ACTION_TEXT } from '../../../src/channels/slack/listeners/unknown-action.js';
import { chartFileName, slackOutbox } from '../../../src/channels/slack/slack-outbox.js';
import { singleTokenClients } from '../../../src/channels/slack/slack-clients.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import type { AnswerJob } from '../../../src/jobs/answer-job.js';

const SECRET = 'test-signing-secret';
let db: TestDatabase;
let slack: FakeSlack;
let llm: FakeLlm;
const servers: RunningServer[] = [];
const runtimes: Jobs[] = [];

async function botServer(options: { withLlm?: boolean; exports?: boolean; curators?: string[] } = {}) {
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    RATE_LIMIT_USER_PER_MINUTE: '100',
  });
  const verified = options.curators ? new VerifiedStore(db.pool) : undefined;
  const { desk, logger } = testDesk(db, {
    verified,
    ...(options.withLlm ? { llm: createLlmClient({ baseUrl: llm.baseUrl, model: 'down', maxRetries: 0 }) } : {}),
  });
  // each test's bot is a deployment of its own: the earlier ones' workers (with their own in-process thread memory) stop
  for (const j of runtimes.splice(0)) await j.stop();
  const jobs = await testJobs(db, desk, logger, { slack: botClient(config), exports: options.exports, feedback: Boolean(verified) });
  runtimes.push(jobs);
  const exports = options.exports ? { pool: db.reader!.pool, rowLimit: 100_000, statementTimeoutMs: 10_000 } : undefined;
  const app = createSlackApp({
    config,
    desk,
    readPool: db.pool,
    writePool: db.pool,
    logger,
    queue: jobs.queue,
    exports,
    feedback: verified && { verified, curators: options.curators! },
  });
  const server = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
  servers.push(server);
  return Object.assign(server, { logger });
}

const sign = (body: string, ts?: number) => slackSignature(SECRET, body, ts);

/** The file in an upload: the Web API client sends it as the one part of a multipart form. */
function fileOf(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  if (!text.startsWith('--')) return text;
  const boundary = text.slice(0, text.indexOf('\r\n'));
  const start = text.indexOf('\r\n\r\n') + 4;
  return text.slice(start, text.indexOf(`\r\n${boundary}`, start));
}

async function post(server: RunningServer, body: string, contentType: string, headers: Record<string, string> = sign(body)) {
  const started = Date.now();
  const res = await fetch(`${server.url}/slack/events`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
  return { status: res.status, text: await res.text(), ms: Date.now() - started };
}

let eventSeq = 0;
function mention(text: string, opts: { threadTs?: string; user?: string; eventId?: string } = {}) {
  const ts = `1800000${String(++eventSeq).padStart(3, '0')}.000100`;
  const event = {
    type: 'app_mention',
    user: opts.user ?? 'U1',
    text: `<@UBOT> ${text}`,
    ts,
    channel: 'C1',
    event_ts: ts,
    ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}),
  };
  const body = JSON.stringify({
    token: 'x',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: opts.eventId ?? `Ev${eventSeq}`,
    event_time: 1,
    event,
    authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
  });
  return { body, ts };
}

/** A signed-to-be event body as Slack sends it (team T1). */
const envelope = (event: Record<string, unknown>, id: string) =>
  JSON.stringify({ token: 'x', team_id: 'T1', api_app_id: 'A1', type: 'event_callback', event_id: id, event_time: 1, event });

const blocksText = (c: SlackCall) => JSON.stringify(c.args.blocks ?? '');
/** The chat.update that wrote blocks (holding `contains`) into a bot message of thread `ts`. */
const answerInThread = (ts: string, contains = '', timeoutMs?: number) =>
  slack.waitFor(
    (c) =>
      c.method === 'chat.update' &&
      Boolean(c.args.blocks) &&
      blocksText(c).includes(contains) &&
      slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
    timeoutMs,
  );
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
  await loadStocks(db.pool, 4, '2022-01-04', '2023-12-29');
  slack = await startFakeSlack();
  llm = await startFakeLlm();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const j of runtimes) await j.stop();
  await slack?.close();
  await llm?.close();
  await db?.drop();
});

describe('Slack app (real HTTP, fake Slack Web API)', () => {
  it('mention -> placeholder in the thread -> the answer with its SQL -> the chart PNG uploaded into the same thread', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many crimes were reported each year?');
    const res = await post(server, body, 'application/json');
    expect(res.status).toBe(200);
    const placeholder = await slack.waitFor((c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts);
    expect(placeholder.args).toMatchObject({ channel: 'C1', text: ':hourglass_flowing_sand: Working on it…' });
    const final = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Crimes by year, all of Chicago'));
    expect(blocksText(final)).toContain('Understood as: crimes · all of Chicago · by year');
    expect(blocksText(final)).toContain('SELECT year AS k1');
    expect(final.args.channel).toBe('C1');
    // the rows in Slack's own table (sortable, ten a page), the years as numbers
    const table = (final.args.blocks as { type: string; page_size?: number; rows?: { type: string; value?: number }[][] }[]).find(
      (b) => b.type === 'data_table',
    )!;
    // the answer keeps the first 20 of the 25 years; Download CSV has them all
    expect(table.rows!).toHaveLength(21);
    expect(table.page_size).toBe(10);
    expect(table.rows![1][0]).toMatchObject({ type: 'raw_number', value: 2001 });
    expect(blocksText(final)).toContain('showing 20 of 25 rows');
    expect(String(final.args.text)).toBe('Crimes by year, all of Chicago');
    const complete = await slack.waitFor((c) => c.method === 'files.completeUploadExternal');
    expect(complete.args).toMatchObject({ channel_id: 'C1', thread_ts: ts });
    const upload = slack.uploads.at(-1)!;
    // the PNG inside the multipart upload
    expect(upload.bytes.includes(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBe(true);
    expect(upload.bytes.length).toBeGreaterThan(5_000);
    // a worker that died after the upload but before recording it: the next attempt finds the file in the thread
    const key = `slack:event:${JSON.parse(body).event_id}`;
    expect(slack.messages.some((m) => m.thread_ts === ts && m.files?.some((f) => f.name === chartFileName(key)))).toBe(true);
    const deliveries = runtimes[0].deliveries;
    const delivery = (await deliveries.get(key))!;
    const client = botClient(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.apiUrl }));
    const job = {
      key,
      message: { platform: 'slack', threadId: `slack:C1:${ts}`, text: 'x' },
      action: { type: 'answer' },
      reply: { platform: 'slack', channel: 'C1', threadTs: ts },
    } satisfies AnswerJob;
    const sink = await slackOutbox({ clients: singleTokenClients(client), deliveries, logger: createMemoryLogger() }).replies(
      job,
      delivery,
    );
    const uploads = slack.calls.filter((c) => c.method === 'files.getUploadURLExternal').length;
    const recorded: string[] = [];
    await sink.deliver(delivery.answer!, {
      done: (step) => ['answer', 'chart:started'].includes(step),
      record: async (step) => void recorded.push(step),
    });
    expect(slack.calls.filter((c) => c.method === 'files.getUploadURLExternal')).toHaveLength(uploads);
    expect(recorded).toEqual(['chart']);
    // one that died before the upload began uploads it, once
    await sink.deliver(delivery.answer!, { done: (step) => step === 'answer', record: async () => undefined });
    expect(slack.calls.filter((c) => c.method === 'files.getUploadURLExternal')).toHaveLength(uploads + 1);
  });

  it("a short ranking comes as Slack's own table and chart, with no PNG; a Slack that refuses them gets the classic blocks and the PNG", async () => {
    const server = await botServer();
    const question = 'Which 5 community areas had the most thefts in 2019?';
    const uploadsBefore = slack.of('files.completeUploadExternal').length;
    const native = mention(question);
    await post(server, native.body, 'application/json');
    const answer = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('data_visualization'));
    const blocks = answer.args.blocks as {
      type: string;
      chart?: { type: string; series: { data: { label: string; value: number }[] }[] };
    }[];
    const chart = blocks.find((b) => b.type === 'data_visualization')!.chart!;
    expect(chart.type).toBe('bar');
    expect(chart.series[0].data).toHaveLength(5);
    // the chart's numbers are the table's
    const table = blocks.find((b) => b.type === 'data_table') as unknown as { rows: { value?: number; text: string }[][] };
    expect(table.rows.slice(1).map((r) => r[1].value)).toEqual(chart.series[0].data.map((d) => d.value));
    // no PNG for it, however long we wait for the delivery to finish
    const key = `slack:event:${JSON.parse(native.body).event_id}`;
    await expect.poll(async () => (await runtimes[0].deliveries.get(key))?.status, { timeout: 15_000 }).toBe('answered');
    expect(slack.of('files.completeUploadExternal')).toHaveLength(uploadsBefore);

    slack.refuseBlockTypes.add('data_table');
    slack.refuseBlockTypes.add('data_visualization');
    try {
      const classic = mention(question);
      await post(server, classic.body, 'application/json');
      const upload = await slack.waitFor((c) => c.method === 'files.completeUploadExternal' && c.args.thread_ts === classic.ts);
      expect(upload.args.channel_id).toBe('C1');
      const delivered = slack
        .of('chat.update')
        .filter((c) => blocksText(c).includes('Which 5 community areas') || blocksText(c).includes('community area'))
        .at(-1)!;
      expect(blocksText(delivered)).not.toContain('data_table');
      expect(blocksText(delivered)).toContain('```');
    } finally {
      slack.refuseBlockTypes.clear();
    }
  });

  it('the agent view: a new thread offers verified questions; a question in it gets a status, a title, and the answer in the thread', async () => {
    const server = await botServer();
    const threadTs = '1800000900.000100';
    const started = envelope(
      {
        type: 'assistant_thread_started',
        assistant_thread: { user_id: 'U90', context: {}, channel_id: 'D90', thread_ts: threadTs },
        event_ts: threadTs,
      },
      'EvAgentStart',
    );
    expect((await post(server, started, 'application/json')).status).toBe(200);
    const prompts = await slack.waitFor((c) => c.method === 'assistant.threads.setSuggestedPrompts');
    const offered = JSON.parse(String(prompts.args.prompts)) as { title: string; message: string }[];
    expect(offered.length).toBeLessThanOrEqual(4);
    expect(offered.map((p) => p.message)).toContain('Which community areas had the most burglaries in 2020?');
    expect(offered.at(-1)!.message).toMatch(/^\/backtest 600519/);

    const asked = envelope(
      {
        type: 'message',
        channel: 'D90',
        channel_type: 'im',
        user: 'U90',
        text: 'how many thefts in 2019',
        ts: '1800000901.000100',
        thread_ts: threadTs,
        event_ts: '1800000901.000100',
      },
      'EvAgentAsk',
    );
    expect((await post(server, asked, 'application/json')).status).toBe(200);
    const status = await slack.waitFor((c) => c.method === 'assistant.threads.setStatus' && c.args.thread_ts === threadTs);
    expect(status.args.status).toBe('is looking into it…');
    expect(JSON.parse(String(status.args.loading_messages)).length).toBeGreaterThan(1);
    const typed = await slack.waitFor((c) => c.method === 'assistant.threads.setTitle' && c.args.title === 'how many thefts in 2019');
    expect(typed.args).toMatchObject({ channel_id: 'D90', thread_ts: threadTs });
    // the status line did the waiting: no placeholder message (it would clear the status); the answer is posted once
    const answer = await slack.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.channel === 'D90' && blocksText(c).includes('2019'),
    );
    expect(blocksText(answer)).toContain('data_table');
    const inThread = () =>
      slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'D90' && c.args.thread_ts === threadTs);
    expect(inThread().map((c) => String(c.args.text))).not.toContainEqual(expect.stringContaining('Working on it'));
    // once answered, the thread is titled with what was answered
    const resolved = await slack.waitFor((c) => c.method === 'assistant.threads.setTitle' && c.args.title !== 'how many thefts in 2019');
    expect(resolved.args.title).toMatch(/thefts/i);
    expect(resolved.args.title).toMatch(/2019/);

    // a worker that died after posting the answer but before recording it: the next attempt finds it by its
    // metadata in the thread and updates it, with no second message
    const key = 'slack:event:EvAgentAsk';
    const deliveries = runtimes[0].deliveries;
    await expect.poll(async () => (await deliveries.get(key))?.status, { timeout: 15_000 }).toBe('answered');
    const delivery = (await deliveries.get(key))!;
    await db.pool.query(`UPDATE deliveries SET placeholder = NULL WHERE key = $1`, [key]);
    const client = botClient(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.apiUrl }));
    const job = {
      key,
      message: { platform: 'slack', threadId: `slack:T1:D90:${threadTs}`, text: 'x' },
      action: { type: 'answer' },
      reply: { platform: 'slack', channel: 'D90', threadTs, userId: 'U90', workspace: 'T1', agentView: true },
    } satisfies AnswerJob;
    const posts = inThread().length;
    const sink = await slackOutbox({ clients: singleTokenClients(client), deliveries, logger: createMemoryLogger() }).replies(job, {
      ...delivery,
      placeholder: null,
    });
    await sink.deliver(delivery.answer!, { done: () => false, record: async () => undefined });
    expect(inThread()).toHaveLength(posts);
    const posted = slack.messages.find((m) => m.channel === 'D90' && m.thread_ts === threadTs && m.metadata?.event_payload.key === key)!;
    const updated = slack.calls.filter((c) => c.method === 'chat.update' && c.args.channel === 'D90').at(-1)!;
    expect(updated.args.ts).toBe(posted.ts);
    expect(blocksText(updated)).toContain('data_table');
  });

  it('with one bot token, a signed request from another workspace is dropped, not answered there with this token', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many crimes were reported in 2019?', { eventId: 'EvOtherTeam' });
    const foreign = body.replaceAll('"T1"', '"T9"');
    const calls = slack.calls.length;
    expect((await post(server, foreign, 'application/json')).status).toBe(200);
    expect(await runtimes[0].deliveries.get('slack:event:EvOtherTeam')).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(
      slack.calls.slice(calls).filter((c) => c.method.startsWith('chat.') && (c.args.thread_ts === ts || c.args.channel === 'C1')),
    ).toEqual([]);
    expect(
      server.logger.lines.some((l) => l.includes('a request from workspace T9 reached the single-workspace token of T1; dropped')),
    ).toBe(true);
  });

  it('clarification: buttons, a click stores the choice and answers in the thread; stale and foreign clicks get an ephemeral note', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many robberies happened at night in 2019?', { user: 'U7' });
    await post(server, body, 'application/json');
    const question = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('clarify:22-06'));
    const action = (optionId: string, user: string) => {
      return buttonClick({
        user,
        messageTs: question.args.ts as string,
        threadTs: ts,
        action: { action_id: `clarify:${optionId}`, block_id: 'clarify:night', value: JSON.stringify({ term: 'night', option: optionId }) },
      });
    };
    const foreign = action('20-06', 'U8');
    await post(server, foreign, 'application/x-www-form-urlencoded');
    const note = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U8');
    expect(note.args.text).toBe('<@U7> asked this question; the choice is theirs. Ask your own question in a new thread.');

    const click = action('20-06', 'U7');
    const res = await post(server, click, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(200);
    // Block Kit text escapes &, < and > (Slack shows them as written)
    const answer = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('extract(hour FROM date) &gt;= 20'));
    expect(blocksText(answer)).toContain('Assumptions: night: 20:00-06:00');
    // the question now says what was chosen and by whom, with no buttons left to press
    const settled = slack.calls.find(
      (c) => c.method === 'chat.update' && c.args.ts === question.args.ts && blocksText(c).includes('chosen by'),
    )!;
    expect(settled.args.text).toBe('Night = 20:00-06:00, chosen by <@U7>');
    expect(blocksText(settled)).not.toContain('clarify:');

    await post(server, click, 'application/x-www-form-urlencoded');
    const stale = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U7');
    expect(stale.args.text).toBe('That question was already answered or has expired. Ask it again to get fresh choices.');
  });

  it('a double click on a choice (two clicks at the same moment) gives one answer; the second click is told so', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many robberies happened at night in 2018?', { user: 'U9' });
    await post(server, body, 'application/json');
    const question = await answerInThread(ts, 'clarify:22-06');
    const click = buttonClick({
      user: 'U9',
      messageTs: question.args.ts as string,
      threadTs: ts,
      action: { action_id: 'clarify:18-06', block_id: 'clarify:night', value: JSON.stringify({ term: 'night', option: '18-06' }) },
    });
    await Promise.all([post(server, click, 'application/x-www-form-urlencoded'), post(server, click, 'application/x-www-form-urlencoded')]);
    await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Assumptions: night: 18:00-06:00'));
    await new Promise((r) => setTimeout(r, 1_000));
    const answers = slack.calls.filter((c) => c.method === 'chat.update' && blocksText(c).includes('Assumptions: night: 18:00-06:00'));
    expect(answers).toHaveLength(1);
    // the question's placeholder, and one more for the choice's answer
    expect(slack.messages.filter((m) => m.thread_ts === ts)).toHaveLength(2);
    const told = slack.calls.filter((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U9').map((c) => c.args.text);
    expect(told).toEqual(['That choice is already being answered.']);
  });

  it("one asker's questions are answered one after another: the second waits in line and says so", async () => {
    const server = await botServer({ withLlm: true });
    let calls = 0;
    llm.script.splice(0);
    // the model takes 2 s over the first question's SQL
    llm.respond = () => ({ content: JSON.stringify({ sql: 'SELECT count(*) AS crimes FROM crimes' }), delayMs: ++calls === 1 ? 2_000 : 0 });
    try {
      const first = mention('Which crimes tend to cluster within an hour of each other?', { user: 'U42' });
      await post(server, first.body, 'application/json');
      await pollUntil(async () => (calls >= 1 ? true : undefined), 10_000, 'the first question at the model').catch((e) => {
        throw new Error(e.message + server.logger.lines.join('\n'));
      });
      const second = mention('Which crimes tend to cluster within a day of each other?', { user: 'U42' });
      await post(server, second.body, 'application/json');
      const waiting = await slack.waitFor((c) => c.method === 'chat.postMessage' && c.args.thread_ts === second.ts);
      expect(waiting.args.text).toBe(':hourglass_flowing_sand: In line: 1 question ahead of yours…');
      const [a, b] = await Promise.all([answerInThread(first.ts, '', 20_000), answerInThread(second.ts, '', 20_000)]);
      expect(a.at).toBeLessThanOrEqual(b.at);
    } finally {
      llm.respond = undefined;
    }
  });

  it('"Download CSV" under a table uploads all rows of the query into the thread; a click from another channel gets nothing', async () => {
    const server = await botServer({ exports: true });
    const { body, ts } = mention('Which blocks had the most thefts?', { user: 'U31' });
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts, 'export_csv');
    const button = (answer.args.blocks as { type: string; elements?: { action_id: string; value: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'export_csv')!;
    const click = (channel: string) =>
      buttonClick({
        user: 'U31',
        channel,
        messageTs: answer.args.ts as string,
        threadTs: ts,
        action: { action_id: 'export_csv', block_id: 'b', value: button.value },
      });
    const elsewhere = await post(server, click('C-other'), 'application/x-www-form-urlencoded');
    expect(elsewhere.status).toBe(200);
    const refused = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.channel === 'C-other');
    expect(refused.args.text).toBe('This answer was given in another channel; use Download CSV under it there, or ask the question here.');
    // a double click: two clicks at once make one file, and the second click is told why
    const [res, twice] = await Promise.all([
      post(server, click('C1'), 'application/x-www-form-urlencoded'),
      post(server, click('C1'), 'application/x-www-form-urlencoded'),
    ]);
    expect([res.status, twice.status]).toEqual([200, 200]);
    expect(res.ms).toBeLessThan(2_500);
    const done = await slack.waitFor(
      (c) => c.method === 'files.completeUploadExternal' && c.args.thread_ts === ts && Boolean(c.args.initial_comment),
    );
    const told = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.channel === 'C1' && c.args.user === 'U31');
    expect(told.args.text).toBe('That CSV is on its way: it was asked for a moment ago.');
    await new Promise((r) => setTimeout(r, 500));
    expect(
      slack.calls.filter((c) => c.method === 'files.completeUploadExternal' && c.args.thread_ts === ts && c.args.initial_comment),
    ).toHaveLength(1);
    expect(String(done.args.initial_comment)).toMatch(/^<@U31> the rows of this answer as CSV/);
    const fileId = (done.args.files as { id: string }[])[0].id;
    const csv = fileOf(slack.uploads.find((u) => u.fileId === fileId)!.bytes)
      .trim()
      .split(/\r?\n/);
    const { rows } = await db.pool.query(`SELECT count(DISTINCT block)::int AS n FROM crimes WHERE primary_type = 'THEFT'`);
    expect(csv[0]).toBe('block,incidents');
    expect(csv.length - 1).toBe(rows[0].n);
  });

  it('👍 from a curator on an answer makes its question verified; 👎 from anyone is noted; other reactions are not ours', async () => {
    const server = await botServer({ curators: ['U50'] });
    const { body, ts } = mention('Which blocks had the most assault cases?', { user: 'U51' });
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts);
    const react = (user: string, reaction: string) =>
      JSON.stringify({
        token: 'x',
        team_id: 'T1',
        api_app_id: 'A1',
        type: 'event_callback',
        event_id: `EvReact${user}${reaction}`,
        event_time: 1,
        event: {
          type: 'reaction_added',
          user,
          reaction,
          item: { type: 'message', channel: 'C1', ts: answer.args.ts },
          item_user: 'UBOT',
          event_ts: '1',
        },
      });
    await post(server, react('U51', 'tada'), 'application/json');
    await post(server, react('U51', '-1'), 'application/json');
    const noted = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U51');
    expect(noted.args.text).toMatch(/^Thanks: noted as a wrong or unhelpful answer/);
    // Slack retries the same event: one reply, not two
    const retried = react('U51', '-1');
    await post(server, retried, 'application/json', { ...sign(retried), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    expect(slack.calls.filter((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U51')).toHaveLength(1);
    await post(server, react('U50', '+1::skin-tone-2'), 'application/json');
    const promoted = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U50');
    expect(promoted.args.text).toMatch(
      /^Thanks: "Which blocks had the most assaults\?" is now a verified question .*asked in any words that mean the same/,
    );
    const { rows } = await db.pool.query(`SELECT user_id, verdict FROM feedback ORDER BY user_id`);
    expect(rows).toEqual([
      { user_id: 'U50', verdict: 'up' },
      { user_id: 'U51', verdict: 'down' },
    ]);
    const again = mention('which blocks had the most ASSAULT cases', { user: 'U52' });
    await post(server, again.body, 'application/json');
    const verifiedAnswer = await slack.waitFor(
      (c) =>
        c.method === 'chat.update' && Boolean(c.args.blocks) && slack.messages.some((m) => m.thread_ts === again.ts && m.ts === c.args.ts),
    );
    expect(blocksText(verifiedAnswer)).toContain('Verified answer: this question');
  });

  it("👍/👎 as Slack's feedback_buttons under an answer are recorded as the reactions are; 👎 opens a reason box; the same click twice takes it back", async () => {
    const server = await botServer({ curators: ['U70'] });
    const { body, ts } = mention('How many thefts were reported in 2017?', { user: 'U71' });
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts, 'feedback_buttons');
    const block = (answer.args.blocks as { type: string; elements?: { type: string; action_id: string }[] }[]).find(
      (b) => b.type === 'context_actions',
    )!;
    expect(block.elements![0]).toMatchObject({ type: 'feedback_buttons', action_id: 'answer_feedback' });
    const click = (user: string, value: string) =>
      buttonClick({
        user,
        messageTs: answer.args.ts as string,
        threadTs: ts,
        action: { action_id: 'answer_feedback', block_id: 'fb', value },
        type: 'feedback_buttons',
      });
    const down = click('U71', 'down');
    expect((await post(server, down, 'application/x-www-form-urlencoded')).status).toBe(200);
    // a 👎 opens the box for what was wrong (test/channels/slack/answer-checks.test.ts): it is the acknowledgement
    const box = await slack.waitFor((c) => c.method === 'views.open');
    expect(box.args.view).toMatchObject({ type: 'modal', callback_id: 'feedback_reason' });
    // the same button again takes the 👎 back; a third time gives it again
    await post(server, click('U71', 'down'), 'application/x-www-form-urlencoded');
    const undone = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U71');
    expect(undone.args).toMatchObject({ channel: 'C1', thread_ts: ts, text: 'Your 👎 on this answer is taken back.' });
    await post(server, click('U71', 'down'), 'application/x-www-form-urlencoded');
    await post(server, click('U70', 'up'), 'application/x-www-form-urlencoded');
    const promoted = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U70');
    expect(promoted.args.text).toMatch(/is now a verified question/);
    expect(slack.calls.filter((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U71')).toHaveLength(1);
    const { rows } = await db.pool.query(`SELECT user_id, verdict FROM feedback WHERE user_id IN ('U70', 'U71') ORDER BY user_id`);
    expect(rows).toEqual([
      { user_id: 'U70', verdict: 'up' },
      { user_id: 'U71', verdict: 'down' },
    ]);
  });

  it('a suggested follow-up button asks the plan of the answer it sits under, as the clicker, even after a later question; a double click asks once', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many thefts were reported in 2018?', { user: 'U61' });
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts, 'follow_up:');
    const buttons = (
      answer.args.blocks as { block_id?: string; elements?: { action_id: string; value: string; text: { text: string } }[] }[]
    ).find((b) => b.block_id === 'follow_ups')!.elements!;
    expect(buttons.map((b) => b.text.text)).toEqual(['by month', 'compare with 2017', 'only arrests']);
    // another question in the thread first: the button still edits the answer it sits under
    const later = mention('How many homicides were there in 2015?', { user: 'U61', threadTs: ts });
    await post(server, later.body, 'application/json');
    await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Homicides in 2015'));
    const click = buttonClick({
      user: 'U62',
      messageTs: answer.args.ts as string,
      threadTs: ts,
      action: { action_id: buttons[0].action_id, block_id: 'follow_ups', value: buttons[0].value },
    });
    await Promise.all([post(server, click, 'application/x-www-form-urlencoded'), post(server, click, 'application/x-www-form-urlencoded')]);
    const byMonth = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Thefts by month in 2018'));
    expect(slack.messages.find((m) => m.ts === byMonth.args.ts)?.thread_ts).toBe(ts);
    const told = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U62');
    expect(told.args.text).toBe('That follow-up was asked already; its answer is in the thread.');
  });

  it('a question that could not be stored is not acknowledged: 500, Slack retries, and the retry is answered once (the person told once)', async () => {
    const server = await botServer();
    const queue = runtimes[0].queue;
    const real = queue.enqueue.bind(queue);
    // what ALTER DATABASE ... ALLOW_CONNECTIONS false gives a new connection
    queue.enqueue = async () => {
      throw Object.assign(new Error('database "datadesk" is not currently accepting connections'), { code: '55000' });
    };
    const { body, ts } = mention('How many thefts were reported in 2017?', { eventId: 'EvNotStored' });
    try {
      expect((await post(server, body, 'application/json')).status).toBe(500);
    } finally {
      queue.enqueue = real;
    }
    const told = await slack.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts && String(c.args.text).startsWith('The database is unavailable'),
    );
    expect(told).toBeDefined();
    // Slack's retry of the same event, now that the database takes it
    expect(
      (await post(server, body, 'application/json', { ...sign(body), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_error' }))
        .status,
    ).toBe(200);
    await answerInThread(ts, 'Thefts in 2017');
    expect(
      slack.calls.filter(
        (c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts && String(c.args.text).startsWith('The database is unavailable'),
      ),
    ).toHaveLength(1);
  });

  it('a follow-up in the thread uses the thread memory', async () => {
    const server = await botServer();
    const first = mention('How many thefts were reported in district 11 in 2019?');
    await post(server, first.body, 'application/json');
    await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Thefts in 2019, in district 11'));
    const follow = mention('and in 2020?', { threadTs: first.ts });
    await post(server, follow.body, 'application/json');
    const answer = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Thefts in 2020, in district 11'));
    expect(answer.args.channel).toBe('C1');
  });

  it("edits by fragment in a thread, in Slack's own encoding: a bare month takes the thread's year, '2018 &amp; 2019' is one stretch", async () => {
    const server = await botServer();
    const first = mention('How many thefts were reported in March 2019?');
    await post(server, first.body, 'application/json');
    await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Thefts in 2019-03 (March 2019)'));
    const april = mention('and April?', { threadTs: first.ts });
    await post(server, april.body, 'application/json');
    const n = (
      await db.pool.query(
        `SELECT count(*)::int AS n FROM crimes WHERE primary_type = 'THEFT' AND date >= '2019-04-01' AND date < '2019-05-01'`,
      )
    ).rows[0].n;
    await slack.waitFor(
      (c) => c.method === 'chat.update' && blocksText(c).includes(`Thefts in 2019-04 (April 2019), all of Chicago: ${n}`),
    );
    const byYear = mention('by year, only 2018 &amp; 2019', { threadTs: first.ts });
    await post(server, byYear.body, 'application/json');
    await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Thefts by year in 2018-2019, all of Chicago'));
  });

  it('/backtest is acknowledged at once, posted as a thread parent, and answered in that thread', async () => {
    const server = await botServer();
    // as Slack delivers what was typed: < and > as &lt; and &gt; (the README's own example failed on them)
    const text = '600519 2023 buy: RSI(14) &lt; 30 sell: RSI(14) &gt; 70 kpi: sharpe';
    const form = new URLSearchParams({
      command: '/backtest',
      text,
      user_id: 'U3',
      channel_id: 'C2',
      team_id: 'T1',
      response_url: 'http://127.0.0.1:1/r',
      trigger_id: 't',
    }).toString();
    const res = await post(server, form, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(3_000);
    const parent = await slack.waitFor((c) => c.method === 'chat.postMessage' && c.args.channel === 'C2' && !c.args.thread_ts);
    expect(parent.args.text).toBe(`<@U3> asked for a backtest: \`${text}\``);
    const answer = await slack.waitFor(
      (c) => c.method === 'chat.update' && c.args.channel === 'C2' && blocksText(c).includes('Kweichow Moutai'),
    );
    expect(blocksText(answer)).toContain('FROM shanghai_stock_exchange');
    await slack.waitFor((c) => c.method === 'files.completeUploadExternal' && c.args.channel_id === 'C2');
  });

  it('/datadesk digest subscribes the channel; bad input gets a specific ephemeral error', async () => {
    const server = await botServer();
    const command = (text: string) =>
      new URLSearchParams({
        command: '/datadesk',
        text,
        user_id: 'U3',
        channel_id: 'C9',
        team_id: 'T1',
        response_url: 'http://127.0.0.1:1/r',
        trigger_id: 't',
      }).toString();
    const ok = await post(server, command('digest weekly monday 09:00 America/Chicago'), 'application/x-www-form-urlencoded');
    expect(JSON.parse(ok.text)).toMatchObject({
      response_type: 'in_channel',
      text: expect.stringMatching(/^Digest #\d+: the crime digest, every Monday at 09:00 \(America\/Chicago\)/),
    });
    const bad = await post(server, command('digest weekly someday 09:00'), 'application/x-www-form-urlencoded');
    expect(JSON.parse(bad.text)).toEqual({
      response_type: 'ephemeral',
      text: '"someday" is not a day of the week: weekly needs one, e.g. "weekly monday 09:00".',
    });
    const { rows } = await db.pool.query(`SELECT count(*) AS n FROM digest_subscriptions WHERE channel = 'C9'`);
    expect(rows[0].n).toBe(1);
    // help and the list answer the asker alone
    for (const text of ['digest', 'digest help', 'digest list']) {
      expect(JSON.parse((await post(server, command(text), 'application/x-www-form-urlencoded')).text), text).toMatchObject({
        response_type: 'ephemeral',
      });
    }
  });

  it('when Slack refuses to update the placeholder with the answer, the answer comes as a new reply (never silence)', async () => {
    const server = await botServer();
    slack.failAnswerUpdate.push('msg_too_long');
    const { body, ts } = mention('How many thefts were reported in 2019?', { eventId: 'EvUpdateFails' });
    await post(server, body, 'application/json');
    const reply = await slack.waitFor((c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts && Boolean(c.args.blocks));
    expect(blocksText(reply)).toContain('Thefts in 2019, all of Chicago');
  });

  it('three deliveries of one event give one answer', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many thefts were reported in 2019?', { eventId: 'EvRetry1' });
    await post(server, body, 'application/json');
    await post(server, body, 'application/json', { ...sign(body), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    await post(server, body, 'application/json', { ...sign(body), 'x-slack-retry-num': '2', 'x-slack-retry-reason': 'http_timeout' });
    await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('Thefts in 2019, all of Chicago'));
    await new Promise((r) => setTimeout(r, 300));
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts)).toHaveLength(1);
  });

  it('a bad or stale signature gets 401 and nothing runs', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many thefts were reported in 2019?');
    const bad = await post(server, body, 'application/json', {
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-slack-signature': 'v0=deadbeef',
    });
    expect(bad.status).toBe(401);
    const stale = await post(server, body, 'application/json', sign(body, Math.floor(Date.now() / 1000) - 3_600));
    expect(stale.status).toBe(401);
    // correctly signed, but stamped 400 s ahead: refused like a stale one
    const future = await post(server, body, 'application/json', sign(body, Math.floor(Date.now() / 1000) + 400));
    expect(future.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(slack.calls.filter((c) => c.args.thread_ts === ts)).toEqual([]);
  });

  it('GET on the events endpoint is 405; an action or command it does not handle is still acknowledged at once', async () => {
    const server = await botServer();
    const get = await fetch(`${server.url}/slack/events`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const action = new URLSearchParams({
      payload: JSON.stringify({
        type: 'block_actions',
        user: { id: 'U1' },
        team: { id: 'T1' },
        api_app_id: 'A1',
        container: { type: 'message' },
        trigger_id: 't',
        channel: { id: 'C1' },
        message: { ts: '1.2' },
        actions: [{ action_id: 'something_new', block_id: 'b', type: 'button', value: 'x', action_ts: '1' }],
      }),
    }).toString();
    const acked = await post(server, action, 'application/x-www-form-urlencoded');
    expect(acked.status).toBe(200);
    expect(acked.ms).toBeLessThan(2_500);
    // and the clicker is told, not left wondering
    const told = await slack.waitFor(
      (c) => c.method === 'chat.postEphemeral' && c.args.user === 'U1' && c.args.channel === 'C1' && c.args.thread_ts === '1.2',
    );
    expect(told.args.text).toBe(UNKNOWN_ACTION_TEXT);
    const form = new URLSearchParams({
      command: '/weather',
      text: 'tomorrow',
      user_id: 'U3',
      channel_id: 'C2',
      team_id: 'T1',
      response_url: 'http://127.0.0.1:1/r',
      trigger_id: 't',
    }).toString();
    const unknown = await post(server, form, 'application/x-www-form-urlencoded');
    expect(unknown.status).toBe(200);
    expect(JSON.parse(unknown.text)).toMatchObject({
      response_type: 'ephemeral',
      text: 'I do not know /weather; try /datadesk help or /backtest help.',
    });
  });

  it('answers direct messages in their thread and publishes the App Home', async () => {
    const server = await botServer();
    const ts = '1800009999.000100';
    const dm = JSON.stringify({
      token: 'x',
      team_id: 'T1',
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: 'EvDm1',
      event_time: 1,
      event: {
        type: 'message',
        channel_type: 'im',
        channel: 'D1',
        user: 'U5',
        text: 'How many thefts were reported in 2019?',
        ts,
        event_ts: ts,
      },
    });
    await post(server, dm, 'application/json');
    const answer = await slack.waitFor((c) => c.method === 'chat.update' && c.args.channel === 'D1' && Boolean(c.args.blocks));
    expect(blocksText(answer)).toContain('Thefts in 2019, all of Chicago');
    expect(slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel === 'D1')!.args.thread_ts).toBe(ts);

    const home = JSON.stringify({
      token: 'x',
      team_id: 'T1',
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: 'EvHome1',
      event_time: 1,
      event: { type: 'app_home_opened', user: 'U5', channel: 'D1', tab: 'home' },
    });
    await post(server, home, 'application/json');
    const view = await slack.waitFor((c) => c.method === 'views.publish');
    expect(view.args.user_id).toBe('U5');
    expect(JSON.stringify(view.args.view)).toMatch(/Data: 5,000 crimes through \d{4}-\d{2}-\d{2}/);
  });

  it('the LLM failing reaches the thread as a clear sentence', async () => {
    const server = await botServer({ withLlm: true });
    llm.script.push({ status: 500 }, { status: 500 });
    const { body } = mention('Which crimes tend to cluster within an hour of each other?');
    await post(server, body, 'application/json');
    const answer = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('language model'));
    expect(String(answer.args.text)).toMatch(/^The language model could not help with this just now: the LLM service answered HTTP 500/);
  });

  describe('streamed answers (a Slack with chat.startStream)', () => {
    const threadOf = (ts: string) => slack.messages.filter((m) => m.channel === 'C1' && m.thread_ts === ts);
    const tasksOf = (calls: SlackCall[]) =>
      calls.flatMap((c) => (c.args.chunks as { type: string; title?: string; status?: string; text?: string }[] | undefined) ?? []);

    it('a mention streams into one message: the steps as tasks, the headline, then a data_table and a native chart as its final blocks', async () => {
      slack.streaming = true;
      try {
        const server = await botServer();
        // Slack's encoding of "&" in the question, as it sends it
        const { body, ts } = mention('Which 5 community areas had the most thefts in 2019 &amp; how many?');
        expect((await post(server, body, 'application/json')).status).toBe(200);
        const stop = await slack.waitFor((c) => c.method === 'chat.stopStream' && Boolean(c.args.blocks));
        const key = `slack:event:${JSON.parse(body).event_id}`;
        const start = slack.of('chat.startStream').find((c) => c.args.thread_ts === ts)!;
        // outside a DM, Slack needs whom the stream is for
        expect(start.args).toMatchObject({
          channel: 'C1',
          recipient_user_id: 'U1',
          recipient_team_id: 'T1',
          task_display_mode: 'timeline',
        });
        const streamTs = stop.args.ts as string;
        const appends = slack.of('chat.appendStream').filter((c) => c.args.ts === streamTs);
        const chunks = tasksOf([start, ...appends]);
        const tasks = chunks.filter((c) => c.type === 'task_update');
        expect(tasks[0]).toMatchObject({ status: 'in_progress' });
        expect(tasks.some((t) => t.status === 'complete' && t.title === 'Question received')).toBe(true);
        expect(tasks.filter((t) => t.status === 'in_progress').length).toBeGreaterThan(2);
        const headline = chunks.find((c) => c.type === 'markdown_text') as { text: string };
        expect(headline.text).toMatch(/^\*\*.*thefts.*2019.*\*\*$/i);
        // the final blocks: the table and chart, not the headline again, and the metadata a retry finds it by
        const blocks = stop.args.blocks as { type: string; block_id?: string; rows?: { value?: number }[][] }[];
        expect(blocks.map((b) => b.type)).toEqual(expect.arrayContaining(['data_table', 'data_visualization']));
        expect(blocks.some((b) => b.block_id === 'headline')).toBe(false);
        expect(stop.args.metadata).toMatchObject({ event_type: 'datadesk_placeholder', event_payload: { key } });
        expect(blockKitProblems({ text: headline.text, blocks: stop.args.blocks })).toEqual([]);
        // the numbers are the database's
        const { rows } = await db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019 AND community_area IS NOT NULL
           GROUP BY community_area ORDER BY n DESC LIMIT 5`,
        );
        const table = blocks.find((b) => b.type === 'data_table')!;
        expect(table.rows!.slice(1).map((r) => r.at(-1)!.value)).toEqual(rows.map((r) => r.n));
        // one message in the thread, and it is the stream: no placeholder posted, none updated
        await expect.poll(async () => (await runtimes[0].deliveries.get(key))?.status, { timeout: 15_000 }).toBe('answered');
        expect(threadOf(ts).map((m) => m.ts)).toEqual([streamTs]);
        expect(slack.of('chat.postMessage').filter((c) => c.args.thread_ts === ts)).toHaveLength(0);
        expect((await runtimes[0].deliveries.get(key))!.placeholder).toEqual({ ts: streamTs, stream: '1' });
      } finally {
        slack.streaming = false;
      }
    });

    it('a stream Slack closed while the question waited is finished by chat.update of the same message, not a second one', async () => {
      slack.streaming = true;
      slack.streamIdleMs = 0;
      try {
        const server = await botServer();
        const { body, ts } = mention('How many thefts were reported in 2019?');
        await post(server, body, 'application/json');
        const answer = await slack.waitFor(
          (c) =>
            c.method === 'chat.update' && blocksText(c).includes('Thefts in 2019, all of Chicago') && c.args.ts === threadOf(ts)[0]?.ts,
        );
        const [only] = threadOf(ts);
        expect(threadOf(ts)).toHaveLength(1);
        expect(answer.args.ts).toBe(only.ts);
        expect(only.stream).toBeDefined();
        // the update carries the headline block (nothing was streamed) and the metadata
        expect(blocksText(answer)).toContain('"block_id":"headline"');
        expect(answer.args.metadata).toMatchObject({ event_type: 'datadesk_placeholder' });
      } finally {
        slack.streaming = false;
        slack.streamIdleMs = 60_000;
      }
    });

    it('the same event delivered three times at once streams one answer', async () => {
      slack.streaming = true;
      try {
        const server = await botServer();
        const { body, ts } = mention('How many thefts were reported in 2019?', { eventId: 'EvStreamTwice' });
        const retry = (n: number) => ({ ...sign(body), 'x-slack-retry-num': String(n), 'x-slack-retry-reason': 'http_timeout' });
        await Promise.all([
          post(server, body, 'application/json'),
          post(server, body, 'application/json', retry(1)),
          post(server, body, 'application/json', retry(2)),
        ]);
        await slack.waitFor((c) => c.method === 'chat.stopStream' && threadOf(ts).some((m) => m.ts === c.args.ts));
        await new Promise((r) => setTimeout(r, 500));
        expect(threadOf(ts)).toHaveLength(1);
        expect(slack.of('chat.startStream').filter((c) => c.args.thread_ts === ts)).toHaveLength(1);
      } finally {
        slack.streaming = false;
      }
    });

    it('in the agent view (a DM) the worker streams the steps and the answer, with no recipient', async () => {
      slack.streaming = true;
      try {
        const server = await botServer();
        const threadTs = '1800000950.000100';
        const asked = envelope(
          {
            type: 'message',
            channel: 'D95',
            channel_type: 'im',
            user: 'U95',
            text: 'how many thefts in 2019',
            ts: '1800000951.000100',
            thread_ts: threadTs,
            event_ts: '1800000951.000100',
          },
          'EvAgentStream',
        );
        await post(server, asked, 'application/json');
        const stop = await slack.waitFor((c) => c.method === 'chat.stopStream' && c.args.channel === 'D95' && Boolean(c.args.blocks));
        const start = slack.of('chat.startStream').find((c) => c.args.channel === 'D95')!;
        expect(start.args.recipient_user_id).toBeUndefined();
        expect(slack.messages.filter((m) => m.channel === 'D95' && m.thread_ts === threadTs).map((m) => m.ts)).toEqual([stop.args.ts]);
        await slack.waitFor(
          (c) => c.method === 'assistant.threads.setTitle' && c.args.thread_ts === threadTs && /2019/.test(String(c.args.title)),
        );
      } finally {
        slack.streaming = false;
      }
    });
  });

  it("every message the bot sent in these tests is within Slack's published limits", () => {
    const sent = slack.calls.filter((c) =>
      ['chat.postMessage', 'chat.update', 'chat.postEphemeral', 'views.publish', 'views.open', 'chat.stopStream'].includes(c.method),
    );
    expect(sent.length).toBeGreaterThan(30);
    for (const c of sent) {
      const problems =
        c.method === 'views.publish' || c.method === 'views.open'
          ? viewProblems(c.args.view as Record<string, unknown>)
          : // a stream's text is what was streamed into it
            blockKitProblems({
              text: c.method === 'chat.stopStream' ? slack.messages.find((m) => m.ts === c.args.ts)?.text : c.args.text,
              blocks: c.args.blocks,
            });
      expect(problems, `${c.method} ${String(c.args.text).slice(0, 60)}`).toEqual([]);
    }
  });
});

describe('Slack details (issue 33)', () => {
  it("an event naming a channel this token cannot reach (another workspace's) is tried once: channel_not_found is final", async () => {
    const server = await botServer();
    slack.unreachableChannels.set('C-FAR', 'channel_not_found');
    try {
      const ts = '1800999001.000100';
      const body = envelope(
        { type: 'app_mention', user: 'U81', text: '<@UBOT> How many thefts were reported in 2016?', ts, channel: 'C-FAR', event_ts: ts },
        'EvFar1',
      );
      expect((await post(server, body, 'application/json')).status).toBe(200);
      const row = await pollUntil(
        async () => {
          const { rows } = await db.pool.query(`SELECT status, attempts FROM deliveries WHERE channel = 'C-FAR'`);
          return rows[0]?.status === 'failed' ? rows[0] : undefined;
        },
        15_000,
        'the question in C-FAR given up',
      );
      // a retry would come a second later: wait past it
      await new Promise((r) => setTimeout(r, 3_000));
      expect(row.attempts).toBe(1);
      const { rows } = await db.pool.query(`SELECT status, attempts FROM deliveries WHERE channel = 'C-FAR'`);
      expect(rows).toEqual([{ status: 'failed', attempts: 1 }]);
      // the receiver's placeholder and the one attempt's: nothing more is sent there
      expect(slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'C-FAR')).toHaveLength(2);
      expect(server.logger.lines.join('\n')).toContain('not answered, and not tried again: Slack says channel_not_found for channel C-FAR');
    } finally {
      slack.unreachableChannels.clear();
    }
  });

  it('a feedback click whose note cannot be posted is acknowledged (200), its verdict kept, the failure logged at warn', async () => {
    const server = await botServer({ curators: ['U90'] });
    const { body, ts } = mention('How many thefts were reported in 2014?', { user: 'U91' });
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts, 'feedback_buttons');
    slack.unreachableChannels.set('C1', 'channel_not_found');
    try {
      const click = buttonClick({
        user: 'U91',
        messageTs: answer.args.ts as string,
        threadTs: ts,
        action: { action_id: 'answer_feedback', block_id: 'fb', value: 'up' },
        type: 'feedback_buttons',
      });
      expect((await post(server, click, 'application/x-www-form-urlencoded')).status).toBe(200);
    } finally {
      slack.unreachableChannels.clear();
    }
    const { rows } = await db.pool.query(`SELECT verdict FROM feedback WHERE user_id = 'U91'`);
    expect(rows).toEqual([{ verdict: 'up' }]);
    expect(server.logger.lines.find((l) => l.includes('the feedback note to U91 could not be posted'))).toMatch(/^warn: slack: /);
    expect(server.logger.lines.filter((l) => l.startsWith('error:'))).toEqual([]);
  });

  it('a 👍 taken back (reaction_removed) withdraws that verdict; a 👎 given since stays', async () => {
    const server = await botServer({ curators: ['U40'] });
    const { body, ts } = mention('How many robberies were reported in 2013?', { user: 'U41' });
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts);
    const reaction = (type: string, user: string, name: string, id: string) =>
      envelope(
        { type, user, reaction: name, item: { type: 'message', channel: 'C1', ts: answer.args.ts }, item_user: 'UBOT', event_ts: '1' },
        id,
      );
    const verdicts = async () =>
      (await db.pool.query(`SELECT user_id, verdict FROM feedback WHERE user_id IN ('U41', 'U42') ORDER BY user_id`)).rows;
    await post(server, reaction('reaction_added', 'U41', '+1::skin-tone-2', 'EvRm1'), 'application/json');
    await post(server, reaction('reaction_added', 'U42', '+1', 'EvRm2'), 'application/json');
    expect(await verdicts()).toEqual([
      { user_id: 'U41', verdict: 'up' },
      { user_id: 'U42', verdict: 'up' },
    ]);
    expect((await post(server, reaction('reaction_removed', 'U41', '+1::skin-tone-2', 'EvRm3'), 'application/json')).status).toBe(200);
    expect(await verdicts()).toEqual([{ user_id: 'U42', verdict: 'up' }]);
    // a 👎 since the 👍: taking the 👍 off leaves the 👎
    await post(server, reaction('reaction_added', 'U42', '-1', 'EvRm4'), 'application/json');
    await post(server, reaction('reaction_removed', 'U42', '+1', 'EvRm5'), 'application/json');
    expect(await verdicts()).toEqual([{ user_id: 'U42', verdict: 'down' }]);
    // another emoji, or a message that is no answer: nothing
    await post(server, reaction('reaction_removed', 'U42', 'tada', 'EvRm6'), 'application/json');
    expect(await verdicts()).toEqual([{ user_id: 'U42', verdict: 'down' }]);
  });
});
