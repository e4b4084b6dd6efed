// A backtest in words asks the model first (the summarizer): a hung model is
// bound by the same answer deadline as a crime question's, and the person is
// told, instead of waiting minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../../src/llm/client.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { testDesk } from '../../helpers/desk.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';

let db: TestDatabase;
let llm: FakeLlm;
beforeAll(async () => {
  db = await createTestDatabase();
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm?.close();
  await db?.drop();
});

describe('a backtest with a hung model', () => {
  it('ends at the answer deadline with a sentence, not minutes later', async () => {
    const { desk } = testDesk(db, {
      llm: createLlmClient({ baseUrl: llm.baseUrl, model: 'hung', maxRetries: 0, timeoutMs: 60_000 }),
      answerDeadlineMs: 1_500,
    });
    llm.script.push({ content: '{}', delayMs: 20_000 }, { content: '{}', delayMs: 20_000 });
    const started = Date.now();
    const answer = await desk.answer({
      platform: 'cli',
      threadId: 'bt-hung',
      text: 'backtest a strategy that buys 600519 when RSI(14) is oversold and sells when it is overbought in 2023',
    });
    const took = Date.now() - started;
    expect(took).toBeLessThan(10_000);
    expect(JSON.stringify(answer)).toMatch(/did not answer within 1(\.5)? s/);
  }, 30_000);
});
