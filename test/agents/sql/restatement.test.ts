// A model's restated question on a fragment is checked against its query before it is stored, shown or
// used as the next turn's context (issue 32): a scripted model that restates wrongly is caught every
// time, one that restates rightly is kept, one that gives the edited answer's query again is no edit.
import { describe, expect, it, beforeAll } from 'vitest';
import { crimeDatabase } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { scriptedClient, useFakeLlm } from '../../helpers/fake-llm.js';

const data = crimeDatabase(10_000);
const model = useFakeLlm();
let t: ReturnType<typeof testDesk>;

beforeAll(() => {
  // a one-number result is told by us with no narration call; any other call picks the row count
  model.llm.respond = () => ({ content: JSON.stringify({ facts: ['rows'] }) });
  t = testDesk(data.db, {
    llm: scriptedClient(model.llm, { model: 'fake', maxRetries: 0 }),
  });
});

/** The fragment the reader cannot place, so the model answers it with free SQL. */
const FRAGMENT = 'what about thefts with a getaway car?';
const SQL = "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019 AND description ILIKE '%POCKET%'";

async function thread(id: string, restated: string, sql = SQL) {
  const ask = (text: string) => t.desk.answer({ platform: 'cli', threadId: id, text });
  const first = await ask('How many thefts were reported in 2019?');
  expect(first.kind).toBe('result');
  model.llm.script.push({ content: JSON.stringify({ sql, question: restated }) });
  const answer = await ask(FRAGMENT);
  const memory = await t.memory.get(id);
  return { answer, stored: memory.history.at(-1)?.question };
}

describe("a model's restatement of a fragment", () => {
  it('is caught every time it says another period, type, place or flag than its query (13 wrong restatements)', async () => {
    const wrong = [
      'How many thefts were reported in 2018?',
      'How many burglaries were reported in 2019?',
      'How many thefts were reported in Austin in 2019?',
      'How many thefts with an arrest were reported in 2019?',
      'How many robberies in 2019 involved a getaway driver?',
      'How many thefts in 2020 involved a getaway driver?',
      'How many thefts in 2019 and 2020 involved a getaway driver?',
      'How many thefts were reported in March 2019?',
      'How many crimes were reported in 2019?',
      'How many thefts by month in 2019?',
      'How many thefts were reported in district 11 in 2019?',
      'How many domestic thefts were reported in 2019?',
      'How many thefts were reported?',
    ];
    for (const [i, restated] of wrong.entries()) {
      const { answer, stored } = await thread(`wrong-${i}`, restated);
      expect(answer.kind, restated).toBe('result');
      // never stored, shown or fed to the next turn: the thread keeps the question in the words typed
      expect(stored, restated).toBe(`How many thefts were reported in 2019? (then: ${FRAGMENT})`);
      expect(answer.kind === 'result' && answer.resolved, restated).toBeFalsy();
      expect(answer.kind === 'result' && answer.headline, restated).not.toContain(restated);
      expect(answer.kind === 'result' && answer.notes.join(' '), restated).toMatch(/restatement of this follow-up did not match its query/);
    }
  });

  it("is kept in our words when the reader reads it; one named only literally is not shown in the model's words", async () => {
    const read = await thread(
      'right-read',
      'How many thefts were reported in 2019?',
      "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019",
    );
    // the reader's words for the plan, not the model's
    expect(read.stored).toBe('How many thefts were reported in 2019?');
    expect(read.answer.kind === 'result' && read.answer.headline).toBe('How many thefts were reported in 2019?');
    // years and types right, but beyond the reader: the thread keeps the words typed, nothing of the model's is shown
    const literal = await thread('right-literal', 'How many thefts in 2019 involved a pickpocket?');
    expect(literal.stored).toBe(`How many thefts were reported in 2019? (then: ${FRAGMENT})`);
    expect(literal.answer.kind === 'result' && literal.answer.resolved).toBeFalsy();
    expect(JSON.stringify(literal.answer)).not.toContain('pickpocket');
  });

  it("is no edit when the model gives the edited answer's query again, unchanged", async () => {
    const id = 'stale';
    const ask = (text: string) => t.desk.answer({ platform: 'cli', threadId: id, text });
    await ask('How many thefts were reported in 2019?');
    const last = (await t.memory.get(id)).history.at(-1)!.sql!;
    model.llm.script.push({
      content: JSON.stringify({
        sql: `${last.toUpperCase().replace(/'THEFT'/, "'THEFT'")};`,
        question: 'How many thefts with a getaway driver in 2019?',
      }),
    });
    const answer = await ask(FRAGMENT);
    expect(answer).toMatchObject({ kind: 'refusal', reason: expect.stringMatching(/gave the last answer's query again, unchanged/) });
    expect((await t.memory.get(id)).history).toHaveLength(1);
  });
});
