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
import { makeAnswer, type Answer, type ChartSpec } from '../../../src/core/answer.js';
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
import { teamsChartElement } from '../../../src/channels/teams/card-chart.js';
import { citationBytes, citationCard, citationClaim, citedSource } from '../../../src/channels/teams/citation.js';
import { welcomeCard } from '../../../src/channels/teams/welcome.js';

// the package's `main` (lib/) is ES modules with extensionless imports, which Node cannot load; dist/ is its UMD build
const AC = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.js') as typeof import('adaptivecards');

/** Teams' host settings that decide what is valid (from Microsoft's Teams host config sample). */
const TEAMS_HOST = {
  supportsInteractivity: true,
  actions: { maxActions: 6, showCard: { actionMode: 'inline' } },
  adaptiveCard: { allowCustomStyle: false },
};

/**
 * Chart.HorizontalBar against its schema (learn.microsoft.com, charts in Adaptive Cards: the common element
 * properties, `color`, `colorSet`, `displayMode`, axis titles, and `data`, points of a category `x` and a value `y`),
 * then replaced by its fallback as a host without charts does; the other charts are the shared helper's.
 */
const HORIZONTAL_BAR = new Set(['type', 'id', 'title', 'color', 'colorSet', 'displayMode', 'xAxisTitle', 'yAxisTitle', 'data', 'fallback']);
const HORIZONTAL_BAR_COMMON = [
  'isVisible',
  'height',
  'horizontalAlignment',
  'separator',
  'spacing',
  'targetWidth',
  'grid.area',
  'requires',
  'lang',
];
function horizontalBarProblems(el: Record<string, unknown>): string[] {
  const problems = Object.keys(el)
    .filter((k) => !HORIZONTAL_BAR.has(k) && !HORIZONTAL_BAR_COMMON.includes(k))
    .map((k) => `Chart.HorizontalBar: ${k} is not a property of Chart.HorizontalBar`);
  if (el.displayMode !== undefined && !['AbsoluteWithAxis', 'AbsoluteNoAxis', 'PartToWhole'].includes(el.displayMode as string))
    problems.push('Chart.HorizontalBar.displayMode: not a display mode');
  if (!Array.isArray(el.data) || !el.data.length) problems.push('Chart.HorizontalBar.data: an array of points is required');
  else
    (el.data as Record<string, unknown>[]).forEach((p, i) => {
      if (!(typeof p?.x === 'string' || typeof p?.x === 'number') || typeof p?.y !== 'number' || !Number.isFinite(p.y))
        problems.push(`Chart.HorizontalBar.data[${i}]: a point needs an x (text or number) and a finite number y`);
    });
  if (el.fallback !== undefined && el.fallback !== 'drop' && typeof (el.fallback as Record<string, unknown>)?.type !== 'string')
    problems.push('Chart.HorizontalBar.fallback: an element or "drop"');
  return problems;
}
function withHorizontalBarFallbacks(node: unknown, problems: string[]): unknown {
  if (Array.isArray(node))
    return node.flatMap((n) => {
      const el = n as Record<string, unknown>;
      if (el?.type !== 'Chart.HorizontalBar') return [withHorizontalBarFallbacks(n, problems)];
      problems.push(...horizontalBarProblems(el));
      return el.fallback && el.fallback !== 'drop' ? [withHorizontalBarFallbacks(el.fallback, problems)] : [];
    });
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withHorizontalBarFallbacks(v, problems)]));
  return node;
}

/** Every parse and validation event the library raises for this card JSON. */
function cardEvents(json: Card): string[] {
  const card = new AC.AdaptiveCard();
  card.hostConfig = new AC.HostConfig(TEAMS_HOST);
  const context = new AC.SerializationContext(AC.Versions.v1_5);
  // Teams' chart elements are checked against their schema, then the library parses what they fall back to
  const events: string[] = [];
  const plain = withChartFallbacks(withHorizontalBarFallbacks(json, events) as Card, events);
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
const AS_SENT_IN_TEAMS = { exportUrl: AS_SENT.exportUrl, universalActions: true, citation: true };

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
    // categories are bars: community areas' names read across, so their bars lie down
    expect(elements(answerCard(byName.get('result: ranking')!, linked))).toEqual(['"type":"Chart.HorizontalBar"']);
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

  it('no PNG is drawn while answering where Teams draws the chart itself, nor with a public address: the image is a link drawn when fetched', async () => {
    const byName = new Map(answers);
    const drawn: Buffer[] = [];
    const later: string[] = [];
    const links = (publicBase: boolean) => ({
      link: (png: Buffer) => (drawn.push(png), 'https://bot.example.com/charts/drawn.png'),
      later: (spec: ChartSpec) => (later.push(spec.title), `https://bot.example.com/charts/later-${later.length}.png`),
      publicBase,
    });
    // a line Teams draws: its fallback image, for a client without charts, is a link, with or without a public address
    const series = byName.get('result: series')!;
    for (const publicBase of [false, true]) {
      const chart = await chartForCard(series, links(publicBase), undefined, AS_SENT_IN_TEAMS);
      expect(chart).toEqual({ url: `https://bot.example.com/charts/later-${later.length}.png`, alt: later.at(-1) });
      const native = JSON.parse(
        JSON.stringify(answerCard(series, chart, AS_SENT_IN_TEAMS)).match(/\{"type":"Chart\.Line".*?"fallback":\{[^}]*\}\}/)![0],
      );
      expect(native.fallback).toMatchObject({ type: 'Image', url: chart!.url });
    }
    // a heat map Teams cannot draw: a link with a public address; without one, drawn now (inline when it fits) as before
    const heatmap = byName.get('backtest: a grid of two parameters with costs, heat map')!;
    expect((await chartForCard(heatmap, links(true), undefined, AS_SENT_IN_TEAMS))!.url).toBe(`https://bot.example.com/charts/later-3.png`);
    expect(drawn).toEqual([]);
    const now = await chartForCard(heatmap, links(false), undefined, AS_SENT_IN_TEAMS);
    expect(later).toHaveLength(3);
    expect(now!.url.startsWith('data:image/png;base64,') || drawn.length === 1).toBe(true);
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
          // drawn now, as without a public address or a lazy link: the heaviest card there is
          await chartForCard(
            answer,
            { link: () => 'https://bot.example.com/charts/0123456789abcdef0123456789abcdef.png' },
            undefined,
            AS_SENT,
          ),
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
        // in Teams the chart is fitted with the citation the message carries, and the two stay within the limit
        const teamsChart =
          variant === 'chart as sent'
            ? await chartForCard(
                answer,
                { link: () => 'https://bot.example.com/charts/0123456789abcdef0123456789abcdef.png' },
                undefined,
                AS_SENT_IN_TEAMS,
              )
            : chart;
        const inTeams = answerCard(answer, teamsChart, AS_SENT_IN_TEAMS);
        const teamsBytes = Buffer.byteLength(JSON.stringify(inTeams)) + citationBytes(answer);
        if (teamsBytes > CARD_BYTES_LIMIT) failures.push(`${name} (${variant}, Teams): the card and its citation are ${teamsBytes} bytes`);
        for (const [as, card] of [
          ['Emulator', json],
          ['Teams', inTeams],
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

  it('categories are bars (upright with short names, lying down with long or many), a time series a line, whatever the names', () => {
    const spec = (kind: 'bar' | 'line', labels: string[]) => ({
      kind,
      title: 't',
      labels,
      series: [{ name: 'incidents', values: labels.map((_, i) => i + 1), axis: 'left' as const, fill: false }],
      yLabel: 'incidents',
    });
    const type = (s: ReturnType<typeof spec>) => teamsChartElement(s)?.type;
    expect(type(spec('bar', ['THEFT', 'BATTERY', 'ASSAULT']))).toBe('Chart.VerticalBar');
    expect(type(spec('bar', ['RESIDENCE - PORCH / HALLWAY', 'STREET']))).toBe('Chart.HorizontalBar');
    expect(type(spec('bar', ['AUSTIN', 'NEAR NORTH SIDE', 'LOOP']))).toBe('Chart.HorizontalBar');
    const blocks = Array.from({ length: 50 }, (_, i) => `0${String(i).padStart(2, '0')}XX N STATE ST`);
    expect(type(spec('bar', blocks))).toBe('Chart.HorizontalBar');
    expect(type(spec('line', ['2019-01', '2019-02', '2019-03']))).toBe('Chart.Line');
    const lying = teamsChartElement(spec('bar', blocks), { type: 'Image', url: 'https://bot.example.com/c.png' })!;
    expect(horizontalBarProblems(lying)).toEqual([]);
    expect(cardEvents({ type: 'AdaptiveCard', version: '1.5', body: [lying] })).toEqual([]);
    // the checker sees a broken one
    expect(horizontalBarProblems({ type: 'Chart.HorizontalBar', data: [{ x: 'a', y: 'b' }], displayMode: 'Sideways' })).toEqual([
      'Chart.HorizontalBar.displayMode: not a display mode',
      'Chart.HorizontalBar.data[0]: a point needs an x (text or number) and a finite number y',
    ]);
  });

  it("the citation's modal card (no actions) and the welcome cards parse; the claim keeps Teams' limits", () => {
    let cited = 0;
    for (const [name, answer] of answers) {
      const source = citedSource(answer);
      if (!source) continue;
      cited++;
      expect(cardEvents(citationCard(source)), name).toEqual([]);
      expect(citationCard(source).actions, name).toBeUndefined();
      const { appearance } = citationClaim(source) as { appearance: { name: string; abstract: string; keywords?: string[] } };
      expect(appearance.name.length, name).toBeLessThanOrEqual(80);
      expect(appearance.abstract.length, name).toBeLessThanOrEqual(160);
      expect((appearance.keywords ?? []).length, name).toBeLessThanOrEqual(3);
      for (const k of appearance.keywords ?? []) expect(k.length, name).toBeLessThanOrEqual(28);
    }
    // the SQL answers, the backtests and the crime digest cite their SQL; help, refusals and errors have none
    expect(cited).toBeGreaterThanOrEqual(6);
    expect(citedSource(answers.find(([n]) => n === 'help')![1])).toBeUndefined();
    for (const personal of [true, false]) {
      const card = welcomeCard(personal);
      expect(cardEvents(card)).toEqual([]);
      expect((card.actions as unknown[]).length).toBe(3);
    }
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
