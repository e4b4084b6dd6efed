// An answer the next person can check and re-run (issue 36, part 5), over
// real HTTP against the fake Slack: its sources (the stream's task details,
// or a context line), "Re-run on today's data" with what changed since, and a
// 👎 that opens a reason box and is undone by a second click.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createSlackApp } from '../../../src/channels/slack/slack-app.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { botClient, buttonClick, slackSignature, startFakeSlack, type FakeSlack, type SlackCall } from '../../helpers/fake-slack.js';
import { VerifiedStore } from '../../../src/verified/verified-store.js';
import { blockKitProblems, streamChunkProblems, viewProblems } from '../../helpers/block-kit-limits.js';
import { decodeRerun, rerunNote } from '../../../src/core/rerun.js';
import { makeAnswer } from '../../../src/core/answer.js';
import { digestCommand } from '../../../src/digest/subscriptions.js';

const SECRET = 'test-signing-secret';
let db: TestDatabase;
let slack: FakeSlack;
const servers: RunningServer[] = [];
const runtimes: Jobs[] = [];
const today = () => new Date().toISOString().slice(0, 10);

async function botServer() {
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    RATE_LIMIT_USER_PER_MINUTE: '100',
  });
  const verified = new VerifiedStore(db.pool);
  const { desk, logger } = testDesk(db, { verified });
  for (const j of runtimes.splice(0)) await j.stop();
  const jobs = await testJobs(db, desk, logger, { slack: botClient(config), feedback: true });
  runtimes.push(jobs);
  const app = createSlackApp({
    config,
    desk,
    readPool: db.pool,
    writePool: db.pool,
    logger,
    queue: jobs.queue,
    feedback: { verified, curators: ['U900'] },
  });
  const server = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
  servers.push(server);
  return Object.assign(server, { logger });
}

async function post(server: RunningServer, body: string, contentType: string) {
  const res = await fetch(`${server.url}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...slackSignature(SECRET, body) },
    body,
  });
  return { status: res.status, text: await res.text() };
}
const form = 'application/x-www-form-urlencoded';

let seq = 0;
function mention(text: string, user = 'U1') {
  const ts = `1810000${String(++seq).padStart(3, '0')}.000100`;
  const body = JSON.stringify({
    token: 'x',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `EvChk${seq}`,
    event_time: 1,
    event: { type: 'app_mention', user, text: `<@UBOT> ${text}`, ts, channel: 'C1', event_ts: ts },
    authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
  });
  return { body, ts };
}

type Block = { type: string; block_id?: string; elements?: { type: string; action_id: string; value: string }[] } & Record<string, unknown>;
const blocksOf = (c: SlackCall) => (c.args.blocks ?? []) as Block[];
const blocksText = (c: SlackCall) => JSON.stringify(c.args.blocks ?? '');
/** The chat.update that wrote an answer (holding `contains`) into a bot message of thread `ts`. */
const answerInThread = (ts: string, contains = '') =>
  slack.waitFor(
    (c) =>
      c.method === 'chat.update' &&
      Boolean(c.args.blocks) &&
      blocksText(c).includes(contains) &&
      slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
  );

/** The form body Slack POSTs when a modal is submitted. */
function viewSubmission(o: { user: string; privateMetadata: string; reason: string; team?: string }): string {
  const payload = {
    type: 'view_submission',
    team: { id: o.team ?? 'T1', domain: 'test' },
    user: { id: o.user, team_id: o.team ?? 'T1' },
    api_app_id: 'A1',
    token: 'x',
    trigger_id: 't2',
    view: {
      id: 'V9',
      type: 'modal',
      team_id: o.team ?? 'T1',
      callback_id: 'feedback_reason',
      private_metadata: o.privateMetadata,
      state: { values: { reason: { reason_text: { type: 'plain_text_input', value: o.reason } } } },
      hash: 'h',
    },
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  slack = await startFakeSlack();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const j of runtimes) await j.stop();
  await slack?.close();
  await db?.drop();
});

describe('an answer the next person can check (sources, re-run, 👎 with a reason)', () => {
  it('every SQL answer carries its sources: a context line in the blocks, naming the question, the plan, the table and the rows', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many thefts were reported in 2019?');
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts, 'Sources');
    const sources = blocksOf(answer).find((b) => b.block_id === 'sources')!;
    const line = JSON.stringify(sources);
    expect(line).toContain('How many thefts were reported in 2019?');
    expect(line).toMatch(/Understood as:\*.*thefts/);
    const { rows } = await db.pool.query<{ last: string }>(`SELECT max(date)::date::text AS last FROM crimes`);
    expect(line).toContain(`crimes through ${rows[0].last}`);
    expect(line).toMatch(/Ran on:\* \w+ \(\d{4}-\d{2}-\d{2}\)/);
    expect(line).toContain('1 row');
    // the table named is the one the SQL reads
    const sql = String(
      (blocksOf(answer).find((b) => JSON.stringify(b).includes('```')) as unknown as { text: { text: string } }).text.text,
    );
    const table = /Ran on:\* (\w+)/.exec(line)![1];
    expect(sql).toContain(table);
  });

  it('a streamed answer shows its sources as the timeline’s last tasks: the question and plan, the SQL, its table and rows', async () => {
    slack.streaming = true;
    try {
      const server = await botServer();
      const { body, ts } = mention('Which 5 community areas had the most thefts in 2019?');
      await post(server, body, 'application/json');
      const stop = await slack.waitFor((c) => c.method === 'chat.stopStream' && Boolean(c.args.blocks));
      const chunks = slack
        .of('chat.appendStream')
        .filter((c) => c.args.ts === stop.args.ts)
        .flatMap((c) => (c.args.chunks ?? []) as Record<string, string>[]);
      const question = chunks.find((c) => c.id === 'sources:question')!;
      const sql = chunks.find((c) => c.id === 'sources:sql')!;
      expect(question).toMatchObject({ type: 'task_update', status: 'complete' });
      expect(question.details).toMatch(/^Which 5 community areas had the most thefts in 2019\? — understood as: .*theft/i);
      expect(sql.title).toMatch(/^Ran the SQL on \w+/);
      expect(sql.details).toMatch(/^(WITH|SELECT) /);
      expect(sql.details.length).toBeLessThanOrEqual(256);
      expect(sql.output).toMatch(/^\d+ rows? returned on \d{4}-\d{2}-\d{2} · data: crimes through \d{4}-\d{2}-\d{2}$/);
      // the tasks come before the headline, and the blocks do not repeat them
      expect(chunks.findIndex((c) => c.id === 'sources:sql')).toBeLessThan(chunks.findIndex((c) => c.type === 'markdown_text'));
      expect(blocksOf(stop).some((b) => b.block_id === 'sources')).toBe(false);
      expect(slack.messages.filter((m) => m.thread_ts === ts).map((m) => m.ts)).toEqual([stop.args.ts]);
    } finally {
      slack.streaming = false;
    }
  });

  it('"Re-run on today’s data" answers the same plan again and says what changed since; a double click asks once', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many thefts were reported in 2018?', 'U10');
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts, '"rerun"');
    const button = blocksOf(answer).find((b) => b.block_id === 'rerun')!.elements![0];
    expect(button.action_id).toBe('rerun');
    const value = decodeRerun(button.value)!;
    const figure = /: ([\d,]+)$/.exec(String(answer.args.text))![1];
    expect(value.baseline).toMatchObject({ figures: [figure], rows: 1, on: today() });
    // a later question in the thread first: the button still re-runs the answer it sits under
    const click = (messageTs: string, v: string, user = 'U11') =>
      buttonClick({ user, messageTs, threadTs: ts, action: { action_id: 'rerun', block_id: 'rerun', value: v } });
    await Promise.all([
      post(server, click(answer.args.ts as string, button.value), form),
      post(server, click(answer.args.ts as string, button.value), form),
    ]);
    const again = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes(`Re-run on ${today()}:`));
    expect(blocksText(again)).toContain(`Re-run on ${today()}: ${figure} (was ${figure} on ${today()}: no change, the same data).`);
    expect(blocksText(again)).toContain('Thefts in 2018');
    expect(slack.messages.find((m) => m.ts === again.args.ts)?.thread_ts).toBe(ts);
    const told = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U11');
    expect(told.args.text).toBe('That answer was re-run today already; the new answer is in the thread.');

    // an answer of three weeks ago, before the last day's rows were loaded: the re-run says what changed and why
    const n = Number(figure.replace(/,/g, ''));
    const older = JSON.stringify({
      p: value.plan,
      b: { figures: [(n - 9).toLocaleString('en-US')], rows: 1, on: '2020-01-02', through: '2019-12-20' },
    });
    // the same answer's button from another message (its own key): answered again
    await post(server, click('1810099999.000100', older, 'U12'), form);
    const changed = await slack.waitFor((c) => c.method === 'chat.update' && blocksText(c).includes('on 2020-01-02'));
    expect(blocksText(changed)).toMatch(
      new RegExp(
        `Re-run on ${today()}: ${figure} \\(was ${(n - 9).toLocaleString('en-US')} on 2020-01-02: \\+9, new rows loaded since \\(data through \\d{4}-\\d{2}-\\d{2}, was 2019-12-20\\)\\)`,
      ),
    );
    // a value that is not a re-run's: told, nothing asked
    await post(server, click('1810099998.000100', '{"p":1}', 'U13'), form);
    const stale = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U13');
    expect(stale.args.text).toMatch(/older message/);
  });

  it('👎 opens a reason box; the reason is kept with the verdict; a second click on 👎 takes it back', async () => {
    const server = await botServer();
    const { body, ts } = mention('How many robberies were reported in 2017?', 'U20');
    await post(server, body, 'application/json');
    const answer = await answerInThread(ts, 'feedback_buttons');
    const key = `slack:event:${JSON.parse(body).event_id}`;
    const down = () =>
      buttonClick({
        user: 'U21',
        messageTs: answer.args.ts as string,
        threadTs: ts,
        action: { action_id: 'answer_feedback', block_id: 'fb', value: 'down' },
        type: 'feedback_buttons',
      });
    expect((await post(server, down(), form)).status).toBe(200);
    const opened = await slack.waitFor((c) => c.method === 'views.open');
    expect(opened.args.trigger_id).toBe('t');
    const view = opened.args.view as Record<string, unknown> & { private_metadata: string };
    expect(viewProblems(view)).toEqual([]);
    expect(view).toMatchObject({ type: 'modal', callback_id: 'feedback_reason' });
    expect(JSON.stringify(view.blocks)).toContain('plain_text_input');
    expect(JSON.parse(view.private_metadata)).toEqual({ key, channel: 'C1', threadTs: ts, workspace: 'T1' });
    // the box is the acknowledgement: no note besides it
    expect(slack.calls.filter((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U21')).toHaveLength(0);
    const verdicts = async () => (await db.pool.query(`SELECT verdict, reason FROM feedback WHERE user_id = 'U21'`)).rows;
    expect(await verdicts()).toEqual([{ verdict: 'down', reason: null }]);

    // a submission from another workspace is not kept
    await post(server, viewSubmission({ user: 'U21', privateMetadata: view.private_metadata, reason: 'forged', team: 'T9' }), form);
    const submitted = await post(
      server,
      viewSubmission({ user: 'U21', privateMetadata: view.private_metadata, reason: 'It counted 2016 too' }),
      form,
    );
    expect(submitted.status).toBe(200);
    const thanks = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U21');
    expect(thanks.args).toMatchObject({ channel: 'C1', thread_ts: ts });
    expect(thanks.args.text).toMatch(/^Thanks: your reason is kept with the 👎/);
    expect(await verdicts()).toEqual([{ verdict: 'down', reason: 'It counted 2016 too' }]);

    // the same button again: undone
    await post(server, down(), form);
    const undone = await slack.waitFor(
      (c) => c.method === 'chat.postEphemeral' && c.args.user === 'U21' && /taken back/.test(String(c.args.text)),
    );
    expect(undone.args.text).toBe('Your 👎 on this answer is taken back.');
    expect(await verdicts()).toEqual([]);
    expect(slack.of('views.open')).toHaveLength(1);
    // a reason sent after the undo is not kept without its verdict
    await post(server, viewSubmission({ user: 'U21', privateMetadata: view.private_metadata, reason: 'late' }), form);
    await slack.waitFor(
      (c) => c.method === 'chat.postEphemeral' && c.args.user === 'U21' && /taken back meanwhile/.test(String(c.args.text)),
    );
    expect(await verdicts()).toEqual([]);
  });

  it("the Home tab lists this workspace's verified questions and digests, never another workspace's", async () => {
    const server = await botServer();
    const store = new VerifiedStore(db.pool);
    const sql = 'SELECT count(*) AS incidents FROM crimes';
    await store.add({ question: 'How many crimes are recorded in all?', sql, source: 'feedback', addedBy: 'slack:U900', workspace: 'T1' });
    await store.add({ question: 'A question of <another> workspace', sql, source: 'feedback', addedBy: 'slack:U9', workspace: 'T9' });
    const ctx = { platform: 'slack' as const, userId: 'U900', defaultTimezone: 'UTC' };
    await digestCommand(db.pool, 'digest daily 08:00 How many thefts were reported in 2019?', { ...ctx, workspace: 'T1', channel: 'C77' });
    await digestCommand(db.pool, 'digest weekly monday 09:00 UTC', { ...ctx, workspace: 'T9', channel: 'C99' });
    const home = JSON.stringify({
      token: 'x',
      team_id: 'T1',
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: 'EvChkHome',
      event_time: 1,
      event: { type: 'app_home_opened', user: 'U30', channel: 'D30', tab: 'home' },
      authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
    });
    expect((await post(server, home, 'application/json')).status).toBe(200);
    const published = await slack.waitFor((c) => c.method === 'views.publish' && c.args.user_id === 'U30');
    const view = published.args.view as Record<string, unknown>;
    expect(viewProblems(view)).toEqual([]);
    const text = JSON.stringify(view);
    expect(text).toContain('Verified questions');
    expect(text).toContain('• How many crimes are recorded in all? _(verified here)_');
    // the shipped questions every workspace shares are listed after its own
    const list = text.slice(text.indexOf('Verified questions'));
    expect(list.indexOf('• How many crimes are recorded in all?')).toBe(list.indexOf('• '));
    expect(list.split('• ').length).toBeGreaterThan(3);
    expect(text).toMatch(/\(1 verified by its curators with a 👍\)/);
    expect(text).not.toContain('another');
    expect(text).toContain('in <#C77>: a saved question: How many thefts were reported in 2019?');
    expect(text).not.toContain('C99');
  });

  it("every message, view and stream chunk the bot sent here is within Slack's published limits", () => {
    const sent = slack.calls.filter((c) =>
      ['chat.postMessage', 'chat.update', 'chat.postEphemeral', 'views.publish', 'views.open', 'chat.stopStream'].includes(c.method),
    );
    expect(sent.length).toBeGreaterThan(5);
    for (const c of sent) {
      const problems = c.method.startsWith('views.')
        ? viewProblems(c.args.view as Record<string, unknown>)
        : blockKitProblems({
            text: c.method === 'chat.stopStream' ? slack.messages.find((m) => m.ts === c.args.ts)?.text : c.args.text,
            blocks: c.args.blocks,
          });
      expect(problems, `${c.method} ${String(c.args.text).slice(0, 60)}`).toEqual([]);
    }
    for (const c of slack.calls.filter((c) => c.method.endsWith('Stream'))) expect(streamChunkProblems(c.args.chunks)).toEqual([]);
  });
});

describe('the re-run comparison (core/rerun.ts)', () => {
  const answer = (headline: string, rows: number, through: string) =>
    makeAnswer({
      kind: 'result',
      route: 'sql',
      trace: [],
      headline,
      narration: headline,
      sql: ['SELECT 1'],
      assumptions: [],
      notes: [],
      sources: { sql: 'SELECT 1', tables: ['crimes'], rowsReturned: rows, ranOn: '2026-12-02', freshness: `crimes through ${through}` },
    });
  it('says the change, each figure, and why', () => {
    const base = { figures: ['2,180'], rows: 1, on: '2026-11-20', through: '2026-11-19' };
    expect(rerunNote(base, answer('Thefts in 2026, all of Chicago: 2,189', 1, '2026-12-01'), '2026-12-02')).toBe(
      'Re-run on 2026-12-02: 2,189 (was 2,180 on 2026-11-20: +9, new rows loaded since (data through 2026-12-01, was 2026-11-19)).',
    );
    expect(rerunNote(base, answer('Thefts in 2026, all of Chicago: 2,170', 1, '2026-11-19'), '2026-12-02')).toMatch(
      /: -10, the data through 2026-11-19 changed since \(rows corrected or reloaded\)\)\.$/,
    );
    expect(rerunNote({ figures: [], rows: 12, on: '2026-11-20' }, answer('Thefts by month in 2026', 12, '2026-11-19'), '2026-12-02')).toBe(
      'Re-run on 2026-12-02: 12 rows (was 12 rows on 2026-11-20: no change, the same data).',
    );
  });
});
