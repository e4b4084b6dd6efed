import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answerBacktest, type BacktestDeps } from '../../../src/agents/backtest/agent.js';
import { createLlmClient } from '../../../src/llm/client.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';
import { loadStocks } from '../../helpers/stock-data.js';

let db: TestDatabase;
let llm: FakeLlm;
let deps: BacktestDeps;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadStocks(db.pool, 8, '2022-01-04', '2023-12-29');
  llm = await startFakeLlm();
  deps = {
    pool: db.pool,
    statementTimeoutMs: 10_000,
    logger: createMemoryLogger(),
    llm: createLlmClient({ baseUrl: llm.baseUrl, apiKey: 'test-key', model: 'fake-model', maxRetries: 2 }),
  };
});
afterAll(async () => {
  await llm?.close();
  await db?.drop();
});
beforeEach(() => {
  llm.requests.length = 0;
  llm.script.length = 0;
});

const SUMMARY = JSON.stringify({
  tickers: ['600519'],
  start: '2023-01-01',
  end: '2023-12-31',
  buy_mentions: ['RSI under 25'],
  sell_mentions: ['RSI above 75'],
  kpi_mention: 'sharpe',
  task_hint: 'metrics',
});
const SPEC = JSON.stringify({
  task: 'metrics',
  tickers: ['600519'],
  start: '2023-01-01',
  end: '2023-12-31',
  kpi: 'sharpe_ratio',
  strategies: [
    {
      name: 'A',
      buy: [{ type: 'compare', left: { factor: 'RSI', params: { n: 14 } }, op: '<', right: 25 }],
      sell: [{ type: 'compare', left: { factor: 'RSI', params: { n: 14 } }, op: '>', right: 75 }],
    },
  ],
});
const TEXT = 'How would Moutai (600519) have done in 2023 buying when RSI dips under 25 and selling above 75? Sharpe please.';

describe('backtest agent with an LLM (scripted OpenAI-compatible server)', () => {
  it('summarizes, maps mentions to library rules by BM25, fills the spec, and the engine computes', async () => {
    llm.script.push({ content: SUMMARY }, { content: '```json\n' + SPEC + '\n```' });
    const a = await answerBacktest(TEXT, deps);
    expect(a.kind).toBe('result');
    expect(a.kind === 'result' && a.narration).toContain('buying when RSI(14) < 25 and selling when RSI(14) > 75');
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[0].model).toBe('fake-model');
    expect(llm.requests[0].messages[1].content).toContain(TEXT);
    // the spec prompt carries the rules BM25 found for the mentions
    expect(llm.requests[1].messages[1].content).toContain('RSI_OVERSOLD (buy): RSI below 30: oversold');
    expect(llm.requests[1].messages[1].content).toContain('RSI_OVERBOUGHT (sell)');
    expect(a.trace.filter((t) => t.tokens).map((t) => t.tokens)).toEqual([120, 120]);
  });

  it('repairs an invalid JSON reply once, telling the model what was wrong', async () => {
    llm.script.push({ content: SUMMARY }, { content: '{"task": "metrics", "tickers": [' }, { content: SPEC });
    const a = await answerBacktest(TEXT, deps);
    expect(a.kind).toBe('result');
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[2].messages.at(-1)!.content).toMatch(/^That reply was invalid: not valid JSON/);
  });

  it('repairs a spec that breaks the rules of its task, then tells the user what is missing', async () => {
    const bad = JSON.stringify({ ...JSON.parse(SPEC), task: 'ticker_selection' });
    llm.script.push({ content: SUMMARY }, { content: bad }, { content: bad });
    const a = await answerBacktest(TEXT, deps);
    expect(a).toMatchObject({
      kind: 'refusal',
      reason: 'To run this backtest I still need: ticker selection needs at least two tickers to compare.',
    });
    expect(llm.requests[2].messages[1].content).toContain('It has these problems: ticker selection needs at least two tickers to compare');
  });

  it('a grid the model fills (period and threshold) answers with the heat map; a threshold axis on a condition with none is sent back', async () => {
    const base = JSON.parse(SPEC);
    const grid = {
      ...base,
      task: 'parameter_confirmation',
      parameter: { factor: 'RSI', param: 'n', candidates: [6, 14, 24] },
      secondParameter: { threshold: { side: 'buy', condition: 0 }, candidates: [20, 25, 30] },
    };
    // first a threshold axis on the sell side's second condition, which does not exist: the repair turn names it
    const wrong = { ...grid, secondParameter: { threshold: { side: 'sell', condition: 1 }, candidates: [70, 80] } };
    llm.script.push({ content: SUMMARY }, { content: JSON.stringify(wrong) }, { content: JSON.stringify(grid) });
    const a = await answerBacktest(
      'Moutai 2023: which RSI period and which buy threshold (20, 25 or 30) work best? Heat map please.',
      deps,
    );
    expect(llm.requests[2].messages[1].content).toContain('the sell rule has no condition 2 to vary the threshold of');
    expect(a.kind).toBe('result');
    if (a.kind !== 'result') return;
    expect(a.chart).toMatchObject({ kind: 'heatmap', labels: ['6', '14', '24'], xLabel: 'RSI.n', yLabel: 'buy threshold' });
    expect(a.table!.rowCount).toBe(9);
    expect(a.headline).toMatch(/^Best pair of parameters by Sharpe(?: that beat holding the stock)?: RSI\.n = \d+, buy threshold = \d+ /);
  });

  it('asks for the ticker when the request names none', async () => {
    llm.script.push({ content: JSON.stringify({ tickers: [], buy_mentions: ['golden cross'], sell_mentions: [] }) });
    const a = await answerBacktest('buy on a golden cross', deps);
    expect(a).toMatchObject({
      kind: 'refusal',
      reason: 'To run this backtest I still need: which stock (a 6-digit code or the company name).',
    });
  });

  it('waits as Retry-After says on a 429, then succeeds', async () => {
    llm.script.push({ status: 429, headers: { 'retry-after': '1' } }, { content: 'fine' });
    const started = Date.now();
    const reply = await deps.llm!.chatText({ system: 's', user: 'u' });
    expect(reply.text).toBe('fine');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(llm.requests).toHaveLength(2);
  });

  it('gives a clear answer when the LLM is down, pointing to the rule syntax', async () => {
    llm.script.push(
      { status: 503, headers: { 'retry-after-ms': '10' } },
      { status: 503, headers: { 'retry-after-ms': '10' } },
      { status: 503, headers: { 'retry-after-ms': '10' } },
    );
    const a = await answerBacktest(TEXT, deps);
    expect(a).toMatchObject({ kind: 'error', retryable: true });
    expect(a.kind === 'error' && a.message).toMatch(
      /^I could not read this request with the language model: the LLM service answered HTTP 503\. The rule syntax works without it:\n/,
    );
  });

  it('rule syntax never calls the LLM', async () => {
    const a = await answerBacktest('600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70', deps);
    expect(a.kind).toBe('result');
    expect(llm.requests).toHaveLength(0);
  });
});
