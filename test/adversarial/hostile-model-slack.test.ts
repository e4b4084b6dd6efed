// A hostile model behind the Slack app, over real HTTP: signed events POSTed
// to the bot, Bolt's Web API client pointed at a fake Slack, the jobs worker
// answering, a scripted OpenAI-compatible model. A thread of three turns whose
// fragment carries Slack's real encoding (&lt; &gt; &amp;, a mention, a link)
// and arrives twice at once (Slack's retry): one answer, the model asked once,
// and nothing the model or the person wrote turned into markup that pings or
// links.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { createSlackApp } from '../../src/channels/slack/slack-app.js';
import { startHttpServer, type RunningServer } from '../../src/server/http-server.js';
import { createLlmClient } from '../../src/llm/client.js';
import type { Jobs } from '../../src/jobs/runtime.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { testJobs } from '../helpers/jobs.js';
import { botClient, slackSignature, startFakeSlack, type FakeSlack, type SlackCall } from '../helpers/fake-slack.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

const SECRET = 'adversarial-signing-secret';
const API_KEY = 'sk-test-SECRET-slack-91c2f0aa';
let db: TestDatabase;
let slack: FakeSlack;
let llm: FakeLlm;
let server: RunningServer;
let jobs: Jobs;
let logLines: string[];

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  slack = await startFakeSlack();
  llm = await startFakeLlm();
  const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.apiUrl });
  const { desk, logger } = testDesk(db, {
    llm: createLlmClient({
      baseUrl: llm.baseUrl,
      apiKey: API_KEY,
      model: 'hostile',
      maxRetries: 0,
      limits: { requestsPerMinute: 1e6, tokensPerMinute: 1e9 },
    }),
  });
  logLines = logger.lines;
  jobs = await testJobs(db, desk, logger, { slack: botClient(config) });
  const app = createSlackApp({ config, desk, readPool: db.pool, writePool: db.pool, logger, queue: jobs.queue });
  server = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await jobs?.stop();
  await slack?.close();
  await llm?.close();
  await db?.drop();
});

let seq = 0;
/** A signed app_mention as Slack sends it: the text encoded as Slack encodes it. */
function mention(text: string, threadTs?: string) {
  const ts = `1800300${String(++seq).padStart(3, '0')}.000100`;
  const body = JSON.stringify({
    token: 'x',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `EvAdv${seq}`,
    event_time: 1,
    event: {
      type: 'app_mention',
      user: 'U7',
      text: `<@UBOT> ${text}`,
      ts,
      channel: 'C1',
      event_ts: ts,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    },
    authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
  });
  return { body, ts };
}
const post = (body: string, retry?: number) =>
  fetch(`${server.url}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...slackSignature(SECRET, body),
      ...(retry ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' } : {}),
    },
    body,
  }).then((r) => r.status);
const blocksOf = (c: SlackCall) => JSON.stringify(c.args.blocks ?? '');
/** the answers (chat.update with blocks) written into bot messages of thread `ts` */
const answersIn = (ts: string) =>
  slack.calls.filter(
    (c) => c.method === 'chat.update' && c.args.blocks && slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
  );
const nextAnswer = async (ts: string, after: number) => {
  await slack.waitFor(() => answersIn(ts).length > after, 20_000);
  return answersIn(ts)[after];
};

describe('a hostile model in a Slack thread', () => {
  it("a fragment in Slack's encoding, delivered twice at once, a model that answers May and pings the channel: one answer, in our words", async () => {
    const first = mention('How many thefts were reported in 2019?');
    expect(await post(first.body)).toBe(200);
    const one = await nextAnswer(first.ts, 0);
    expect(blocksOf(one)).toContain('Thefts in 2019, all of Chicago');

    // "and April &amp; with a getaway car &lt;fast&gt;? <@U123> <https://evil.example|click>" as Slack sends it
    const fragment = mention('and April &amp; with a getaway car &lt;fast&gt;? <@U123> <https://evil.example|click>', first.ts);
    llm.script.push(
      {
        content: JSON.stringify({
          plan: {
            measure: { kind: 'count' },
            filters: {
              types: ['THEFT'],
              time: { from: '2019-05-01', to: '2019-06-01', said: '<!channel> April 2019 <https://evil.example|verify>' },
            },
          },
        }),
      },
      // a second request, if one came, would be answered with markup too
      { content: JSON.stringify({ sql: "SELECT '<!channel>' AS x, count(*) FROM crimes" }) },
    );
    const statuses = await Promise.all([post(fragment.body), post(fragment.body, 1)]);
    expect(statuses).toEqual([200, 200]);
    const answer = await nextAnswer(first.ts, 1);
    await new Promise((r) => setTimeout(r, 800));
    // one answer for the two deliveries, and the model asked once
    expect(answersIn(first.ts)).toHaveLength(2);
    expect(llm.requests).toHaveLength(1);
    // the person's text reached the model decoded, without the mention's or link's markup turned into words of the question
    const prompt = llm.requests[0].messages[1].content;
    expect(prompt).toContain('with a getaway car <fast>?');
    expect(prompt).not.toContain('&amp;');
    const shown = blocksOf(answer) + String(answer.args.text);
    // what ran is said (May), the change from what the person said is said, nothing pings or links
    expect(shown).toContain('Thefts in 2019-05, all of Chicago');
    expect(shown).toContain('I read \\"in 2019-04\\"; the answer counts \\"in 2019-05\\" instead');
    for (const bad of ['<!channel>', '<!here>', '<@U123>', 'evil.example', API_KEY]) expect(shown, bad).not.toContain(bad);
    expect(logLines.join('\n')).not.toContain(API_KEY);
  });
});
