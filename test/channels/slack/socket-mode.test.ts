// Socket Mode end to end: the bot (SLACK_APP_TOKEN set) asks the fake Web API
// for a connection (apps.connections.open), connects to a local WebSocket
// server that speaks Slack's socket protocol, gets hello, then envelopes, and
// must acknowledge each by its envelope_id; answers go through the fake Web API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createSlackApp, type SlackApp } from '../../../src/channels/slack/slack-app.js';
import { escapeMrkdwn } from '../../../src/channels/slack/render-blocks.js';
import { RULE_SYNTAX_HELP } from '../../../src/agents/backtest/help.js';
import { UNKNOWN_ACTION_TEXT } from '../../../src/channels/slack/listeners/unknown-action.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { testJobs } from '../../helpers/jobs.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { botClient, startFakeSlack, type FakeSlack, type SlackCall } from '../../helpers/fake-slack.js';
import { startFakeSocketMode, type FakeSocketMode } from '../../helpers/fake-socket-mode.js';

let db: TestDatabase;
let slack: FakeSlack;
let socket: FakeSocketMode;
let bot: SlackApp;
let jobs: Jobs;
/** how long the queue takes to take a question (a slow database), to see when the ack goes */
let enqueueDelayMs = 0;
/** the next enqueue fails as a database that takes no connections does (ALTER DATABASE ... ALLOW_CONNECTIONS false) */
let failNextEnqueue = false;

const blocksText = (c: SlackCall) => JSON.stringify(c.args.blocks ?? '');

let seq = 0;
function mentionPayload(text: string, eventId = `EvSock${++seq}`) {
  const ts = `1810000${String(++seq).padStart(3, '0')}.000100`;
  return {
    ts,
    eventId,
    payload: {
      token: 'x',
      team_id: 'T1',
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: eventId,
      event_time: 1_810_000_000,
      event: { type: 'app_mention', user: 'U1', text: `<@UBOT> ${text}`, ts, channel: 'C1', event_ts: ts },
      authorizations: [{ enterprise_id: null, team_id: 'T1', user_id: 'UBOT', is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
      event_context: '4-fake',
    },
  };
}

const commandPayload = (command: string, text: string) => ({
  token: 'x',
  team_id: 'T1',
  team_domain: 'test',
  channel_id: 'C2',
  channel_name: 'general',
  user_id: 'U3',
  user_name: 'asker',
  command,
  text,
  api_app_id: 'A1',
  is_enterprise_install: 'false',
  response_url: 'http://127.0.0.1:1/response/x',
  trigger_id: `trig${++seq}`,
});

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  slack = await startFakeSlack();
  socket = await startFakeSocketMode();
  slack.socketModeUrl = socket.url;
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_APP_TOKEN: 'xapp-test',
    SLACK_API_URL: slack.apiUrl,
    RATE_LIMIT_USER_PER_MINUTE: '100',
  });
  const { desk, logger } = testDesk(db);
  jobs = await testJobs(db, desk, logger, { slack: botClient(config) });
  const queue = Object.assign(Object.create(jobs.queue) as Jobs['queue'], {
    enqueue: async (job: Parameters<Jobs['queue']['enqueue']>[0]) => {
      await new Promise((r) => setTimeout(r, enqueueDelayMs));
      if (failNextEnqueue) {
        failNextEnqueue = false;
        throw Object.assign(new Error('database "datadesk" is not currently accepting connections'), { code: '55000' });
      }
      return jobs.queue.enqueue(job);
    },
  });
  bot = createSlackApp({ config, desk, readPool: db.pool, writePool: db.pool, logger, queue });
  expect(bot.route).toBeUndefined();
  await bot.start();
  await socket.connected();
});
afterAll(async () => {
  await bot?.stop();
  await jobs?.stop();
  await socket?.close();
  await slack?.close();
  await db?.drop();
});

describe("Socket Mode (a local server speaking Slack's socket protocol)", () => {
  it('connects with the app-level token through apps.connections.open and is connected after hello', () => {
    expect(slack.of('apps.connections.open')).toHaveLength(1);
    expect(socket.connections).toBe(1);
  });

  it('an app_mention envelope is acknowledged by its envelope_id at once, after the question is queued, and answered in the thread', async () => {
    const { payload, ts, eventId } = mentionPayload('How many thefts were reported in 2019?');
    enqueueDelayMs = 400;
    const id = socket.send('events_api', payload);
    const ack = await socket.ackOf(id).finally(() => (enqueueDelayMs = 0));
    expect(ack.ms).toBeGreaterThanOrEqual(400);
    expect(ack.ms).toBeLessThan(2_000);
    // an events_api ack carries no response
    expect(ack.payload ?? {}).toEqual({});
    // acknowledged only once the question was durable: a process killed right after the ack loses nothing
    const { rows } = await db.pool.query('SELECT key FROM deliveries WHERE key = $1', [`slack:event:${eventId}`]);
    expect(rows).toHaveLength(1);
    const answer = await slack.waitFor(
      (c) => c.method === 'chat.update' && Boolean(c.args.blocks) && slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
    );
    expect(blocksText(answer)).toContain('Thefts in 2019, all of Chicago');
    expect(answer.args.channel).toBe('C1');
  });

  it('a redelivered envelope (same event_id, retry_attempt 1) is acknowledged and answered once', async () => {
    const { payload, ts } = mentionPayload('How many robberies were reported in 2018?');
    const first = socket.send('events_api', payload);
    const again = socket.send('events_api', payload, { retryAttempt: 1, retryReason: 'timeout' });
    await socket.ackOf(first);
    await socket.ackOf(again);
    await slack.waitFor(
      (c) => c.method === 'chat.update' && Boolean(c.args.blocks) && slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === ts)).toHaveLength(1);
    expect(
      slack.calls.filter(
        (c) => c.method === 'chat.update' && Boolean(c.args.blocks) && slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
      ),
    ).toHaveLength(1);
  });

  it('an envelope whose question could not be queued is not acknowledged: Slack sends it again, and that one is answered', async () => {
    const { payload, ts } = mentionPayload('How many burglaries were reported in 2018?');
    failNextEnqueue = true;
    const first = socket.send('events_api', payload);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(socket.acks.find((a) => a.envelope_id === first)).toBeUndefined();
    const again = socket.send('events_api', payload, { retryAttempt: 1, retryReason: 'timeout' });
    await socket.ackOf(again);
    await slack.waitFor(
      (c) =>
        c.method === 'chat.update' &&
        blocksText(c).includes('Burglaries in 2018') &&
        slack.messages.some((m) => m.thread_ts === ts && m.ts === c.args.ts),
    );
  });

  it('a slash command envelope (/backtest help) is acknowledged with the ephemeral help as its payload', async () => {
    const id = socket.send('slash_commands', commandPayload('/backtest', 'help'));
    const ack = await socket.ackOf(id);
    expect(ack.ms).toBeLessThan(2_000);
    expect(ack.payload).toEqual({ response_type: 'ephemeral', text: escapeMrkdwn(RULE_SYNTAX_HELP) });
  });

  it('a command it does not know is acknowledged with an ephemeral sentence', async () => {
    const id = socket.send('slash_commands', commandPayload('/weather', 'tomorrow'));
    expect((await socket.ackOf(id)).payload).toEqual({
      response_type: 'ephemeral',
      text: 'I do not know /weather; try /datadesk help or /backtest help.',
    });
  });

  it('an interactive (block_actions) envelope is acknowledged, handled or not', async () => {
    const action = (actionId: string, value: string) => ({
      type: 'block_actions',
      user: { id: 'U4', username: 'clicker', team_id: 'T1' },
      api_app_id: 'A1',
      token: 'x',
      trigger_id: `trig${++seq}`,
      team: { id: 'T1', domain: 'test' },
      container: { type: 'message', message_ts: '1810000999.000100', channel_id: 'C1', is_ephemeral: false },
      channel: { id: 'C1', name: 'general' },
      message: { type: 'message', ts: '1810000999.000100', thread_ts: '1810000998.000100', text: 'answer' },
      response_url: 'http://127.0.0.1:1/response/y',
      actions: [
        {
          type: 'button',
          action_id: actionId,
          block_id: 'b1',
          text: { type: 'plain_text', text: 'Full SQL' },
          value,
          action_ts: '1810000999.5',
        },
      ],
    });
    const showSql = socket.send('interactive', action('show_sql', 'SELECT count(*)\nFROM crimes\nWHERE x < 5'));
    expect((await socket.ackOf(showSql)).ms).toBeLessThan(2_000);
    const note = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === 'U4');
    expect(blocksText(note)).toContain('WHERE x &lt; 5');
    const unknown = socket.send('interactive', action('something_new', 'x'));
    expect((await socket.ackOf(unknown)).ms).toBeLessThan(2_000);
    const told = await slack.waitFor(
      (c) => c.method === 'chat.postEphemeral' && c.args.user === 'U4' && c.args.text === UNKNOWN_ACTION_TEXT,
    );
    expect(told.args.thread_ts).toBe('1810000998.000100');
  });

  it('the client answers nothing but acks: no stray messages on the socket', () => {
    expect(socket.stray).toEqual([]);
  });
});
