// A "perfect model": a scripted server that answers every generation call with
// the benchmark's gold SQL and, asked to narrate, picks the first two of the
// facts it is shown. Whatever path answers (the query plan first, the model for
// the rest), what the user sees must then be right for every benchmark
// question: the rows, the true row count, a narration that is kept. A second
// model answers the narration with a number of its own instead of fact ids,
// and none of its words may reach the person.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql } from '../../../src/agents/sql/execute.js';
import { loadBenchmarks, relaxedMatch, type BenchmarkItem } from '../../../src/eval/sql-eval.js';
import { createLlmClient } from '../../../src/llm/client.js';
import type { Answer } from '../../../src/core/answer.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';

let db: TestDatabase;
let llm: FakeLlm;
const items = loadBenchmarks();
const byQuestion = new Map(items.map((i) => [i.question, i]));

/** The first two facts of the prompt, by id; or, inventing, a claim of its own where the ids belong. */
function pick(prompt: string, invent: boolean): string {
  const ids = [...prompt.split('Facts:\n')[1].matchAll(/^([a-z]+(?:-\d+)?): /gm)].map((m) => m[1]);
  return JSON.stringify({ facts: invent ? ['That is 987,654,321 more than expected.'] : ids.slice(0, 2) });
}

function modelPlayedBy(invent: boolean) {
  return (request: FakeLlm['requests'][number]) => {
    const prompt = request.messages.at(-1)!.content;
    if (prompt.includes('Reply with a JSON object')) {
      const question = /\nQuestion: (.*)\n/.exec(prompt)![1];
      return { content: JSON.stringify({ sql: byQuestion.get(question)!.sql }) };
    }
    return { content: pick(prompt, invent) };
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 15_000);
  llm = await startFakeLlm();
}, 120_000);
afterAll(async () => {
  await llm?.close();
  await db?.drop();
});

async function askAll(invent: boolean): Promise<{ item: BenchmarkItem; answer: Answer }[]> {
  llm.respond = modelPlayedBy(invent);
  const { desk, memory } = testDesk(db, { llm: createLlmClient({ baseUrl: llm.baseUrl, model: 'perfect', maxRetries: 0 }) });
  const out: { item: BenchmarkItem; answer: Answer }[] = [];
  for (const item of items) {
    const threadId = `perfect-${invent}-${item.id}`;
    if (item.clarifications) await memory.update(threadId, (s) => Object.assign(s.clarifications, item.clarifications));
    out.push({ item, answer: await desk.answer({ platform: 'cli', threadId, text: item.question }) });
  }
  return out;
}

describe('with a perfect model', () => {
  it('every benchmark question is right in what the user sees: rows, row count, and a narration that is kept', async () => {
    const wrong: string[] = [];
    for (const { item, answer } of await askAll(false)) {
      if (answer.kind !== 'result' || !answer.table) {
        wrong.push(`${item.id}: ${answer.kind}`);
        continue;
      }
      const gold = await runSql(db.reader!.pool, item.sql, 20_000);
      const shown = answer.table.rows.length;
      const ordered = /\border\s+by\b/i.test(item.sql.replace(/over\s*\([^)]*\)/gi, ''));
      const seen = { columns: answer.table.columns, rows: answer.table.rows, rowCount: answer.table.rowCount, truncated: false };
      const expected = { ...gold, rows: gold.rows.slice(0, shown) };
      if (answer.table.rowCount !== gold.rowCount) wrong.push(`${item.id}: ${answer.table.rowCount} rows, gold ${gold.rowCount}`);
      else if (!relaxedMatch(expected, seen, ordered)) wrong.push(`${item.id}: other values`);
      else if (answer.notes.some((n) => /not shown|not in the result|failed/.test(n)))
        wrong.push(`${item.id}: narration replaced (${answer.notes.join('; ')})`);
    }
    expect(wrong).toEqual([]);
  }, 180_000);

  it("a model that answers with a number of its own instead of our facts' ids never has it shown", async () => {
    const narratedByModel = (await askAll(true)).filter(({ answer }) => answer.trace.some((t) => t.node === 'synthesize' && t.tokens));
    expect(narratedByModel.length).toBeGreaterThan(10);
    for (const { item, answer } of narratedByModel) {
      expect(answer.kind === 'result' && answer.notes.join(' '), item.id).toMatch(/picked none of the computed facts/);
      expect(JSON.stringify(answer), item.id).not.toMatch(/987.654.321/);
    }
  }, 180_000);
});
