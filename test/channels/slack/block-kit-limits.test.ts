// Every Block Kit message the bot can send, against Slack's published limits
// (test/helpers/block-kit-limits.ts): answers of every kind from the real
// agents on a test database and at their extremes, digests, the App Home,
// ephemeral notes, the settled clarification, command replies, placeholders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AllMiddlewareArgs } from '@slack/bolt';
import { makeAnswer, type Answer, type AnswerInput } from '../../../src/core/answer.js';
import { renderAnswerMessages } from '../../../src/channels/slack/render-blocks.js';
import { appHome } from '../../../src/channels/slack/listeners/app-home.js';
import { showSql } from '../../../src/channels/slack/listeners/show-sql.js';
import { clarifyChoice } from '../../../src/channels/slack/listeners/clarify-choice.js';
import { backtestCommand } from '../../../src/channels/slack/listeners/backtest-command.js';
import { datadeskCommand } from '../../../src/channels/slack/listeners/datadesk-command.js';
import { waitingText } from '../../../src/channels/slack/thread-reply.js';
import { WORKING } from '../../../src/channels/slack/placeholder.js';
import { crimeDigest } from '../../../src/digest/content.js';
import { glossary } from '../../../src/knowledge/glossary.js';
import { RateLimiter } from '../../../src/core/rate-limit.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { blockKitProblems, LIMITS, viewProblems } from '../../helpers/block-kit-limits.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { loadStocks } from '../../helpers/stock-data.js';
import { testDesk } from '../../helpers/desk.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 5_000);
  await loadStocks(db.pool, 6, '2022-01-04', '2023-12-29');
});
afterAll(async () => {
  await db?.drop();
});

const expectWithinLimits = (answer: Answer) => {
  const messages = renderAnswerMessages(answer);
  for (const [i, m] of messages.entries()) expect(blockKitProblems(m), `message ${i + 1} of ${messages.length}`).toEqual([]);
  return messages;
};

describe("the validator knows Slack's limits (each rule bites)", () => {
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const button = (o: Record<string, unknown> = {}) => ({
    type: 'button',
    action_id: 'a',
    text: { type: 'plain_text', text: 'Go' },
    value: 'v',
    ...o,
  });
  const cases: [string, { text?: unknown; blocks?: unknown }, RegExp][] = [
    ['51 blocks', { text: 't', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) }, /blocks: 51, over 50/],
    ['a section over 3,000', { text: 't', blocks: [section('x'.repeat(3_001))] }, /3001 characters, over 3000/],
    ['an empty section', { text: 't', blocks: [section('')] }, /empty text/],
    [
      '11 fields',
      { text: 't', blocks: [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }] },
      /fields: 11, over 10/,
    ],
    [
      'a field over 2,000',
      { text: 't', blocks: [{ type: 'section', fields: [{ type: 'mrkdwn', text: 'f'.repeat(2_001) }] }] },
      /over 2000/,
    ],
    ['a header over 150', { text: 't', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }] }, /over 150/],
    ['a mrkdwn header', { text: 't', blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }] }, /must be plain_text/],
    [
      '11 context elements',
      { text: 't', blocks: [{ type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })) }] },
      /elements: 11, not 1..10/,
    ],
    [
      '26 buttons',
      { text: 't', blocks: [{ type: 'actions', elements: Array.from({ length: 26 }, (_, i) => button({ action_id: `a${i}` })) }] },
      /elements: 26, not 1..25/,
    ],
    [
      'a button text over 75',
      { text: 't', blocks: [{ type: 'actions', elements: [button({ text: { type: 'plain_text', text: 'b'.repeat(76) } })] }] },
      /over 75/,
    ],
    [
      'a button value over 2,000',
      { text: 't', blocks: [{ type: 'actions', elements: [button({ value: 'v'.repeat(2_001) })] }] },
      /value: 2001 characters/,
    ],
    [
      'an action_id over 255',
      { text: 't', blocks: [{ type: 'actions', elements: [button({ action_id: 'a'.repeat(256) })] }] },
      /action_id: 256 characters/,
    ],
    ['repeated action_ids', { text: 't', blocks: [{ type: 'actions', elements: [button(), button()] }] }, /action_ids repeat/],
    ['a block_id over 255', { text: 't', blocks: [{ type: 'divider', block_id: 'b'.repeat(256) }] }, /block_id: over 255/],
    [
      'repeated block_ids',
      {
        text: 't',
        blocks: [
          { type: 'divider', block_id: 'x' },
          { type: 'divider', block_id: 'x' },
        ],
      },
      /block_id: repeated/,
    ],
    ['text over 4,000', { text: 't'.repeat(4_001), blocks: [] }, /text: 4001 characters, over 4000/],
    ['no fallback text', { blocks: [section('s')] }, /no fallback text/],
    ['a cut entity', { text: 't', blocks: [section('a &am')] }, /bare &/],
    ['an unknown block', { text: 't', blocks: [{ type: 'table' }] }, /not one the validator knows/],
  ];
  it.each(cases)('%s', (_name, message, problem) => {
    expect(blockKitProblems(message).join('\n')).toMatch(problem);
  });

  it('a Home tab may hold 100 blocks, a message 50', () => {
    const blocks = Array.from({ length: 100 }, () => ({ type: 'divider' }));
    expect(viewProblems({ type: 'home', blocks })).toEqual([]);
    expect(viewProblems({ type: 'home', blocks: [...blocks, { type: 'divider' }] })).toEqual(['blocks: 101, over 100 for a home']);
  });
});

describe('answers from the real agents', () => {
  const questions: [string, string, 'question' | 'backtest', Answer['kind']][] = [
    ['a result with a long table', 'How many crimes were reported each year?', 'question', 'result'],
    ['a grouped result', 'Which community areas had the most robberies in 2020?', 'question', 'result'],
    ['a clarification', 'How many robberies happened at night in 2019?', 'question', 'clarify'],
    ['a refused write', 'Delete all crimes from 2019', 'question', 'refusal'],
    ['an off-topic question', 'What will the weather be tomorrow?', 'question', 'refusal'],
    ['help', 'help', 'question', 'result'],
    ['backtest help', 'help', 'backtest', 'result'],
    ['a backtest with KPIs and trades', '600519 2022..2023 buy: RSI(14) < 45 sell: RSI(14) > 55 kpi: sharpe', 'backtest', 'result'],
    [
      'a backtest comparing every ticker',
      'compare all 2022..2023 buy: MA(5) crosses above MA(20) sell: MA(5) crosses below MA(20) kpi: return',
      'backtest',
      'result',
    ],
    ['a backtest over parameters', '600519 2022..2023 buy: RSI(6|14|24) < 40 sell: RSI(6|14|24) > 60 kpi: calmar', 'backtest', 'result'],
    [
      'a backtest with A-share costs (KPIs with and without, what the costs took)',
      '600519 2022..2023 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 costs: china slippage: 5bps',
      'backtest',
      'result',
    ],
    [
      'a portfolio with stops, a volume cap and costs (members, rebalances, tearsheet, monthly returns, drawdowns)',
      'portfolio all 2022..2023 top: 3 by amount rebalance: monthly stop: 10% volume-cap: 5% limits: on costs: china',
      'backtest',
      'result',
    ],
    [
      'a single run with exits and its tearsheet',
      '600519 2022..2023 buy: RSI(14) < 45 sell: RSI(14) > 55 stop: 8% trail: 12% tearsheet: on',
      'backtest',
      'result',
    ],
    ['a backtest that cannot be read', '600519 2023 buy: NOT_A_FACTOR(3) > 1', 'backtest', 'error'],
  ];
  it.each(questions)('%s', async (_name, text, kind, expected) => {
    const { desk } = testDesk(db);
    const answer = await desk.answer({ platform: 'slack', threadId: `slack:C1:${Math.random()}`, channel: 'C1', userId: 'U1', text, kind });
    // the kind is part of the point: each kind of answer is covered
    expect(answer.kind === 'refusal' && expected === 'error' ? 'error' : answer.kind).toBe(expected);
    expectWithinLimits(answer);
  });

  it('the crime digest', async () => {
    const end = new Date();
    const answer = await crimeDigest(db.pool, { start: new Date(end.getTime() - 7 * 86_400_000), end }, 'America/Chicago');
    expect(answer.kind).toBe('result');
    expectWithinLimits(answer);
  });
});

describe('answers at their extremes', () => {
  const long = (n: number, s = 'word & <tag> ') => s.repeat(Math.ceil(n / s.length)).slice(0, n);
  const table = (cols: number, rows: number, cell: string) => ({
    columns: Array.from({ length: cols }, (_, i) => `column ${i} ${cell.slice(0, 30)}`),
    rows: Array.from({ length: rows }, () => Array.from({ length: cols }, () => cell)),
    rowCount: rows * 1_000,
    truncated: true,
  });
  const result = (o: Partial<Extract<AnswerInput, { kind: 'result' }>>) =>
    makeAnswer({ kind: 'result', route: 'sql', trace: [], headline: 'h', narration: 'n', sql: [], assumptions: [], notes: [], ...o });
  const extremes: [string, Answer][] = [
    ['a headline of 5,000 characters with & < >', result({ headline: long(5_000), narration: long(5_000) })],
    ['a headline whose escaping ends on the cap', result({ headline: `${'x'.repeat(2_998)}&&&&` })],
    ['a narration of 60,000 characters', result({ narration: long(60_000) })],
    ['a wide table of long cells', result({ table: table(60, 200, long(400)) })],
    [
      'thirty extra tables',
      result({ extraTables: Array.from({ length: 30 }, (_, i) => ({ title: long(4_000), table: table(8, 50, `trade ${i} &`) })) }),
    ],
    ['300 lines of SQL', result({ sql: [Array.from({ length: 300 }, (_, i) => `  AND x${i} < ${i} AND y <> '&'`).join('\n')] })],
    [
      'one line of SQL 12,000 characters long',
      result({ sql: [`SELECT ${Array.from({ length: 1_000 }, (_, i) => `c${i} < 1`).join(', ')} FROM t`] }),
    ],
    [
      'SQL over 2,000 characters in a few lines',
      result({ sql: [Array.from({ length: 12 }, (_, i) => `  AND column_${i} IN (${'1, '.repeat(100)}1)`).join('\n')] }),
    ],
    [
      'many assumptions, notes and a long freshness',
      result({
        assumptions: Array.from({ length: 100 }, () => long(100)),
        notes: Array.from({ length: 70 }, () => long(4_000)),
        freshness: long(5_000),
        understood: Array.from({ length: 200 }, () => long(30)),
      }),
    ],
    [
      'a clarification with 30 long options',
      makeAnswer({
        kind: 'clarify',
        route: 'sql',
        trace: [],
        term: 't'.repeat(300),
        question: long(5_000),
        options: Array.from({ length: 30 }, (_, i) => ({ id: `${i}-${'o'.repeat(300)}`, label: long(200), description: long(4_000) })),
      }),
    ],
    [
      'a refusal with a long reason and many alternatives',
      makeAnswer({
        kind: 'refusal',
        route: 'reject',
        trace: [],
        reason: long(10_000),
        alternatives: Array.from({ length: 80 }, () => long(4_000)),
      }),
    ],
    ['an error of 10,000 characters', makeAnswer({ kind: 'error', route: 'sql', trace: [], message: long(10_000), retryable: true })],
  ];
  it.each(extremes)('%s', (_name, answer) => {
    expectWithinLimits(answer);
  });

  it('every clarifying question the glossary can ask', () => {
    for (const term of glossary().filter((t) => (t.options?.length ?? 0) > 1)) {
      expectWithinLimits(
        makeAnswer({
          kind: 'clarify',
          route: 'sql',
          trace: [],
          term: term.id,
          question: term.question ?? `What does "${term.label}" mean here?`,
          options: term.options!.map((o) => ({ id: o.id, label: o.label, description: o.description })),
        }),
      );
    }
  });

  it('a clarification with more options than an actions block holds still offers every option', () => {
    const options = Array.from({ length: 30 }, (_, i) => ({ id: `o${i}`, label: `option ${i}` }));
    const messages = expectWithinLimits(
      makeAnswer({ kind: 'clarify', route: 'sql', trace: [], term: 'night', question: 'Which?', options }),
    );
    const ids = messages
      .flatMap((m) => m.blocks)
      .filter((b) => b.type === 'actions')
      .flatMap((b) => (b.elements as { action_id: string }[]).map((e) => e.action_id));
    expect(ids).toEqual(options.map((o) => `clarify:${o.id}`));
  });
});

/** A stand-in for Bolt's listener arguments: records what the listener sends. */
function fakeArgs(extra: Record<string, unknown>) {
  const sent: { method: string; args: Record<string, unknown> }[] = [];
  const record = (method: string) => async (args: Record<string, unknown>) => {
    sent.push({ method, args });
    return { ok: true, ts: '1.000100', message_ts: '1.000200' };
  };
  const client = {
    chat: { postMessage: record('chat.postMessage'), postEphemeral: record('chat.postEphemeral'), update: record('chat.update') },
    views: { publish: record('views.publish') },
  };
  const ack = async (response?: Record<string, unknown>) => void sent.push({ method: 'ack', args: response ?? {} });
  const respond = async (response: Record<string, unknown>) => void sent.push({ method: 'respond', args: response });
  return {
    sent,
    args: { client, ack, respond, context: { teamId: 'T1' }, ...extra } as unknown as AllMiddlewareArgs & Record<string, never>,
  };
}

const messageOf = (call: { args: Record<string, unknown> }) => ({ text: call.args.text, blocks: call.args.blocks });

describe('everything else the bot posts', () => {
  it('the App Home view', async () => {
    const { sent, args } = fakeArgs({ event: { type: 'app_home_opened', user: 'U1', tab: 'home', channel: 'D1' } });
    // the listener returns before the view is published (Slack's ack waits for nothing); the view follows
    await appHome(db.pool, createMemoryLogger())(args as never);
    await expect.poll(() => sent.some((s) => s.method === 'views.publish')).toBe(true);
    const view = sent.find((s) => s.method === 'views.publish')!.args.view as { type: string; blocks: unknown[] };
    expect(viewProblems(view)).toEqual([]);
  });

  it('the full SQL, as an ephemeral note, however many characters need escaping', async () => {
    for (const value of ['SELECT 1', '<'.repeat(2_000), `SELECT ${'a & b, '.repeat(330)}`]) {
      const { sent, args } = fakeArgs({
        body: { channel: { id: 'C1' }, user: { id: 'U1' }, message: { ts: '1.1' } },
        action: { type: 'button', action_id: 'show_sql', value },
      });
      await showSql()(args as never);
      const note = sent.find((s) => s.method === 'chat.postEphemeral')!;
      expect(blockKitProblems(messageOf(note)), value.slice(0, 20)).toEqual([]);
      // nothing is lost: the pieces put back together are the SQL
      const code = (note.args.blocks as { text: { text: string } }[]).map((b) => b.text.text.replace(/^```|```$/g, '')).join('');
      expect(code.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).toBe(value);
    }
  });

  it('the settled clarification and the notes on stale or foreign clicks', async () => {
    const deps = {
      queue: { enqueue: async () => true },
      deliveries: { aheadOf: async () => 0, get: async () => ({ placeholder: '1.2' }) },
      logger: createMemoryLogger(),
    };
    for (const [pending, user] of [
      [{ term: 'night', userId: 'U1' }, 'U1'],
      [{ term: 'night', userId: 'U1' }, 'U2'],
      [undefined, 'U1'],
    ] as const) {
      const { sent, args } = fakeArgs({
        body: { channel: { id: 'C1' }, user: { id: user }, message: { ts: '1.2', thread_ts: '1.1' } },
        action: { type: 'button', action_id: 'clarify:20-06', value: JSON.stringify({ term: 'night', option: '20-06' }) },
      });
      await clarifyChoice({ ...deps, desk: { pendingChoice: async () => pending } } as never)(args as never);
      const posted = sent.filter((s) => s.method !== 'ack');
      expect(posted.length).toBeGreaterThan(0);
      for (const call of posted) expect(blockKitProblems(messageOf(call)), call.method).toEqual([]);
    }
  });

  it('command replies: help, the rule syntax, digests and their errors', async () => {
    const gate = { userLimit: new RateLimiter(100), channelLimit: new RateLimiter(100), allowedChannels: [], allowedWorkspaces: [] };
    const replies: Record<string, unknown>[] = [];
    for (const text of ['help', '']) {
      const { sent, args } = fakeArgs({ command: { command: '/backtest', text, channel_id: 'C1', user_id: 'U1' } });
      await backtestCommand({} as never, gate)(args as never);
      replies.push(...sent.map((s) => s.args));
    }
    for (const text of [
      'help',
      'digest',
      'digest list',
      'digest weekly monday 09:00 America/Chicago',
      'digest list',
      'digest weekly someday 09:00',
      `digest daily 08:00 ${'How many thefts & robberies < 5? '.repeat(100)}`,
    ]) {
      const { sent, args } = fakeArgs({ command: { command: '/datadesk', text, channel_id: 'C7', user_id: 'U1' } });
      await datadeskCommand(db.pool, 'America/Chicago')(args as never);
      replies.push(...sent.map((s) => s.args));
    }
    expect(replies.length).toBeGreaterThanOrEqual(9);
    for (const r of replies) expect(blockKitProblems(r), String(r.text).slice(0, 40)).toEqual([]);
  });

  it('placeholders and progress lines', () => {
    for (const text of [
      WORKING,
      waitingText(undefined),
      waitingText('In line: 1 question ahead of yours'),
      waitingText('In line: 12 questions ahead of yours'),
    ])
      expect(blockKitProblems({ text })).toEqual([]);
    expect(LIMITS.messageText).toBe(4_000);
  });
});
