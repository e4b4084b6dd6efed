// Every Adaptive Card the bot sends, parsed by Microsoft's own `adaptivecards`
// library (3.0) as Teams would read it: card version 1.5 (the most Teams
// renders), Teams' host settings that bear on validity (interactive, at most 6
// actions, inline show-cards, no custom styles). Parsing and validating must
// raise no event at all. The answers are real: asked of the agents over real
// PostgreSQL (SQL results, clarification, refusals, help, backtests with KPI
// and trade tables, an LLM failing) and produced by the digest content; each
// card is tried without a chart, with the chart inline and with it linked.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerCard, CARD_BYTES_LIMIT, chartForCard, type Card, type ChartImage } from '../../../src/channels/teams/render-card.js';
import { makeAnswer, type Answer } from '../../../src/core/answer.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { crimeDigest } from '../../../src/digest/content.js';
import { digestContent } from '../../../src/digest/digest-content.js';
import type { Subscription } from '../../../src/digest/subscriptions.js';
import { createLlmClient } from '../../../src/llm/client.js';
import { destroyWorkerPool } from '../../../src/backtest/threads/pool.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { loadStocks } from '../../helpers/stock-data.js';
import { teamsChartProblems, withChartFallbacks } from '../../helpers/teams-charts.js';
import { testDesk } from '../../helpers/desk.js';

// the package's `main` (lib/) is ES modules with extensionless imports, which Node cannot load; dist/ is its UMD build
const AC = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.js') as typeof import('adaptivecards');

/** Teams' host settings that decide what is valid (from Microsoft's Teams host config sample). */
const TEAMS_HOST = {
  supportsInteractivity: true,
  actions: { maxActions: 6, showCard: { actionMode: 'inline' } },
  adaptiveCard: { allowCustomStyle: false },
};

/** Every parse and validation event the library raises for this card JSON. */
function cardEvents(json: Card): string[] {
  const card = new AC.AdaptiveCard();
  card.hostConfig = new AC.HostConfig(TEAMS_HOST);
  const context = new AC.SerializationContext(AC.Versions.v1_5);
  // Teams' chart elements are checked against their schema, then the library parses what they fall back to
  const events: string[] = [];
  const plain = withChartFallbacks(json, events);
  card.parse(plain, context);
  for (let i = 0; i < context.eventCount; i++) events.push(`parse: ${context.getEventAt(i).message}`);
  for (const e of card.validateProperties().validationEvents) events.push(`validate: ${e.message}`);
  return events;
}

let db: TestDatabase;
const answers: [string, Answer][] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  await loadStocks(db.pool, 4, '2022-01-04', '2023-12-29');
  const { desk } = testDesk(db);
  const ask = (text: string, extra: { kind?: 'backtest'; threadId?: string } = {}) =>
    desk.answer({
      platform: 'teams',
      threadId: extra.threadId ?? `teams:cards-${answers.length}`,
      channel: 'c1',
      userId: 'u1',
      text,
      kind: extra.kind,
    });
  answers.push(
    ['result: series', await ask('How many crimes were reported each year?')],
    ['result: ranking', await ask('Which 5 community areas had the most thefts in 2019?')],
    ['result: single number', await ask('How many thefts were reported in 2019?')],
    ['clarify', await ask('How many robberies happened at night in 2019?')],
    ['refusal: off topic', await ask('Write me a poem about the sea')],
    ['refusal: a write', await ask('Delete all crimes from 2019')],
    ['help', await ask('help')],
    [
      'backtest: KPI and trade tables, equity chart',
      await ask('600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe', { kind: 'backtest' }),
    ],
    [
      'backtest: with A-share costs (KPIs with and without)',
      await ask('600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe costs: china', { kind: 'backtest' }),
    ],
    [
      'backtest: a grid of two parameters with costs, heat map',
      await ask('600519 2023 buy: RSI(6..24 step 2) < 20..40 step 5 sell: RSI(6..24 step 2) > 70 kpi: sharpe costs: china', {
        kind: 'backtest',
      }),
    ],
    ['backtest: rule syntax help', await ask('help', { kind: 'backtest' })],
  );
  const { desk: withDeadLlm } = testDesk(db, { llm: createLlmClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'down', maxRetries: 0 }) });
  answers.push([
    'error: the LLM is down',
    await withDeadLlm.answer({
      platform: 'teams',
      threadId: 'teams:cards-llm',
      text: 'Which crimes tend to cluster within an hour of each other?',
    }),
  ]);
  const period = { start: new Date('2019-03-04T06:00:00Z'), end: new Date('2019-03-11T05:00:00Z') };
  answers.push(['digest: crimes of the week', await crimeDigest(db.pool, period, 'America/Chicago')]);
  const content = digestContent(db.pool, desk, { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger() });
  const sub = (kind: Subscription['kind'], topic: string): Subscription => ({
    id: 1,
    platform: 'teams',
    workspace: null,
    enterprise_id: null,
    channel: 'c1',
    created_by: 'u1',
    cron: '0 8 * * *',
    timezone: 'UTC',
    kind,
    topic,
    enabled: true,
    last_state: null,
    created_at: new Date(),
  });
  answers.push([
    'digest: saved question',
    (await content.produce(sub('question', 'How many thefts were reported in 2019?'), period)).answer,
  ]);
  answers.push([
    'digest: backtest watch',
    (await content.produce(sub('backtest', '600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe'), period)).answer,
  ]);
  answers.push([
    'error: retryable',
    makeAnswer({
      kind: 'error',
      route: 'sql',
      trace: [],
      message: 'The database is unavailable right now; please try again shortly.',
      retryable: true,
    }),
  ]);
}, 120_000);
afterAll(async () => {
  await destroyWorkerPool();
  await db?.drop();
});

/** What the Teams sink adds to every answer card: in the Emulator 👍/👎 buttons, in Teams choices as Action.Execute. */
const AS_SENT = {
  feedbackKey: 'teams:activity:1700000000001',
  exportUrl: 'https://bot.example.com/exports/0123456789abcdef0123456789abcdef.csv',
};
const AS_SENT_IN_TEAMS = { exportUrl: AS_SENT.exportUrl, universalActions: true };

describe("Adaptive Cards pass Microsoft's parser and validation", () => {
  it('the harness sees problems: an unknown element and more actions than Teams shows are reported', () => {
    expect(cardEvents({ type: 'AdaptiveCard', version: '1.5', body: [{ type: 'Bogus' }] }).join('\n')).toMatch(
      /Unknown element type "Bogus"/,
    );
    const many = Array.from({ length: 7 }, (_, i) => ({ type: 'Action.Submit', title: `o${i}` }));
    expect(cardEvents({ type: 'AdaptiveCard', version: '1.5', body: [], actions: many }).length).toBeGreaterThan(0);
  });

  it("Teams draws the answer's chart itself where it has one (bars, grouped bars, lines; a backtest's equity thinned), with the PNG as fallback", async () => {
    const elements = (card: Card) => JSON.stringify(card).match(/"type":"Chart\.[A-Za-z.]+"/g) ?? [];
    const byName = new Map(answers);
    const linked = { url: 'https://bot.example.com/charts/0123456789abcdef0123456789abcdef.png', alt: 'chart' };
    expect(elements(answerCard(byName.get('result: series')!, linked))).toEqual(['"type":"Chart.Line"']);
    expect(elements(answerCard(byName.get('result: ranking')!, linked))).toEqual(['"type":"Chart.VerticalBar"']);
    const backtest = answerCard(byName.get('backtest: KPI and trade tables, equity chart')!, linked);
    expect(elements(backtest)).toEqual(['"type":"Chart.Line"']);
    const line = JSON.parse(JSON.stringify(backtest).match(/\{"type":"Chart\.Line".*?"fallback":\{[^}]*\}\}/)![0]);
    expect(line.data.map((s: { legend: string }) => s.legend)).toEqual(['Strategy equity', 'Buy and hold', 'Market (equal weight)']);
    expect(line.data[0].values.length).toBeLessThanOrEqual(61);
    expect(line.fallback).toMatchObject({ type: 'Image', url: linked.url });
    // a heat map has no Teams chart: the PNG alone
    expect(elements(answerCard(byName.get('backtest: a grid of two parameters with costs, heat map')!, linked))).toEqual([]);
    // the checker sees a broken chart
    expect(teamsChartProblems({ type: 'Chart.Line', data: [{ legend: 'a', values: [{ x: 'a', y: 'b' }] }], colour: 1 })).toEqual([
      'Chart.Line: colour is not a property of Chart.Line',
      'Chart.Line.data[0].values[0]: a point needs an x (text or number) and a finite number y',
    ]);
  });

  it('the answers cover every kind and the backtest and digest cards', () => {
    const kinds = answers.map(([name, a]) => `${name} -> ${a.kind}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'clarify -> clarify',
        'refusal: off topic -> refusal',
        'refusal: a write -> refusal',
        'help -> result',
        'error: the LLM is down -> error',
        'backtest: KPI and trade tables, equity chart -> result',
        'digest: crimes of the week -> result',
        'digest: backtest watch -> result',
      ]),
    );
    const backtest = answers.find(([n]) => n.startsWith('backtest: KPI'))![1];
    expect(backtest.kind === 'result' && backtest.table && backtest.extraTables.length > 0 && backtest.chart).toBeTruthy();
  });

  it('every card, without a chart, with it inline and with it linked, raises no parse or validation event', async () => {
    const failures: string[] = [];
    const sizes: string[] = [];
    let tried = 0;
    let inline = 0;
    for (const [name, answer] of answers) {
      const charts: [string, ChartImage | undefined][] = [['no chart', undefined]];
      if (answer.kind === 'result' && answer.chart) {
        charts.push([
          'chart as sent',
          await chartForCard(answer, () => 'https://bot.example.com/charts/0123456789abcdef0123456789abcdef.png', undefined, AS_SENT),
        ]);
        charts.push([
          'chart linked',
          { url: 'https://bot.example.com/charts/0123456789abcdef0123456789abcdef.png', alt: answer.chart.title },
        ]);
      }
      for (const [variant, chart] of charts) {
        tried++;
        if (chart?.url.startsWith('data:')) inline++;
        // as the worker sends it: with the 👍/👎 buttons that name the delivery (the Emulator), or as Teams gets it
        const json = answerCard(answer, chart, AS_SENT);
        // Teams refuses a message over about 28 KB: the card with its inline chart must stay under it
        const bytes = Buffer.byteLength(JSON.stringify(json));
        sizes.push(`${name} (${variant}${chart ? (chart.url.startsWith('data:') ? ', inline' : ', linked') : ''}): ${bytes} B`);
        if (bytes > CARD_BYTES_LIMIT) failures.push(`${name} (${variant}): the card is ${bytes} bytes`);
        for (const [as, card] of [
          ['Emulator', json],
          ['Teams', answerCard(answer, chart, AS_SENT_IN_TEAMS)],
        ] as const) {
          const events = cardEvents(card);
          if (events.length) failures.push(`${name} (${variant}, ${as}):\n  ${events.join('\n  ')}`);
        }
      }
    }
    console.log(`Adaptive Card sizes:\n${sizes.join('\n')}`);
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThanOrEqual(answers.length + 6);
    expect(inline).toBeGreaterThanOrEqual(2);
  });

  it('text from anywhere (markdown, tags, long SQL with a Full SQL show-card) parses as well', () => {
    const hostile = '[click](http://evil.example) <a href="x">x</a> **b** \\n\n[1]: javascript:alert(1)';
    const sql = Array.from({ length: 12 }, (_, i) => `SELECT ${i} AS "${hostile}"`).join('\n');
    const answer = makeAnswer({
      kind: 'result',
      route: 'sql',
      trace: [],
      headline: hostile,
      narration: hostile,
      sql: [sql, sql],
      assumptions: [hostile],
      notes: [hostile],
      freshness: hostile,
      understood: [hostile],
      table: {
        columns: [hostile, 'n'],
        rows: [
          [hostile, 1],
          [null, 2.5],
          [true, -1],
        ],
        rowCount: 3,
        truncated: false,
      },
      extraTables: [{ title: hostile, table: { columns: ['a'], rows: [[hostile]], rowCount: 1, truncated: false } }],
    });
    const card = answerCard(answer);
    expect((card.actions as unknown[]).length).toBe(2);
    expect(cardEvents(card)).toEqual([]);
  });
});
