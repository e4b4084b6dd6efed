import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../../src/llm/client.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { scriptedClient, useFakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';

let db: TestDatabase;
const model = useFakeLlm();
let llm: FakeLlm;
let desk: ReturnType<typeof testDesk>['desk'];
let thefts2019: number;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 10_000);
  llm = model.llm;
  desk = testDesk(db, {
    llm: scriptedClient(llm, { model: 'fake-sql', maxRetries: 1 }),
  }).desk;
  thefts2019 = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)).rows[0].n;
});
afterAll(async () => {
  await db?.drop();
});

const GOOD = "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019";
// what runs and is shown: the same count from the rollup that holds it (src/db/aggregate-navigation.ts)
const GOOD_MOVED =
  "-- answered from crimes_by_year_type (the same counts as crimes, pre-aggregated)\nSELECT coalesce(sum(n), 0) AS thefts FROM crimes_by_year_type WHERE primary_type = 'THEFT' AND year = 2019";
const thefts2019Placeholder = '{THEFTS}';
const BY_YEAR = "SELECT year, count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' GROUP BY year ORDER BY year";
// The offline reader answers what the query plan can say without a model; these
// questions carry a detail it cannot place, so the LLM writes their SQL.
const FREE = 'how many thefts in 2019 involved a getaway driver';
const sqlReply = (sql: string) => ({ content: JSON.stringify({ sql }) });
const ask = (text: string, thread = 't') => desk.answer({ platform: 'cli', threadId: thread, text });
const crimeCount = async () => (await db.pool.query('SELECT count(*) AS n FROM crimes')).rows[0].n;

describe('SQL agent with an LLM (scripted OpenAI-compatible server)', () => {
  it('happy path: the LLM writes the SQL from schema, values and retrieved examples; one number is told by us, no second call', async () => {
    llm.script.push(sqlReply(GOOD));
    const a = await ask(`${FREE}?`);
    expect(a).toMatchObject({ kind: 'result', sql: [GOOD_MOVED], narration: `Thefts: ${thefts2019.toLocaleString('en-US')}.` });
    expect(llm.requests).toHaveLength(1);
    const prompt = llm.requests[0].messages[1].content;
    expect(prompt).toContain('primary_type text -- crime category');
    // every crime type in the data, most frequent first, the same list on every run
    const types = (await db.pool.query(`SELECT primary_type AS t FROM crimes GROUP BY 1 ORDER BY count(*) DESC, 1`)).rows.map((r) => r.t);
    expect(prompt).toContain(`values (all of them): ${types.join(', ')}`);
    expect(prompt).toContain(
      "Q: How many thefts were reported in 2019?\nSQL: SELECT count(*) AS incidents\nFROM crimes\nWHERE primary_type = 'THEFT'\n  AND year = 2019",
    );
    expect(prompt).toContain('Do not add LIMIT unless the question asks');
  });

  it('the model picks which of our facts answer the question, and in what order; every sentence is ours', async () => {
    llm.script.push(sqlReply(BY_YEAR), { content: JSON.stringify({ facts: ['highest-1', 'change-1'] }) });
    const a = await ask(FREE);
    const rows = (await db.pool.query(BY_YEAR)).rows as { year: number; thefts: string }[];
    const top = rows.reduce((m, r) => (Number(r.thefts) > Number(m.thefts) ? r : m));
    expect(a.kind === 'result' && a.narration).toMatch(
      new RegExp(
        `^Highest thefts: ${Number(top.thefts).toLocaleString('en-US')} in ${top.year}\\. From year ${rows[0].year} to ${rows.at(-1)!.year}, thefts went from `,
      ),
    );
    const prompt = llm.requests[1].messages[1].content;
    expect(prompt).toContain(`highest-1: Highest thefts: ${Number(top.thefts).toLocaleString('en-US')} in ${top.year}.`);
    expect(prompt).toContain('You do not write sentences');
  });

  it('takes a fenced SQL string inside otherwise valid JSON, as models send it', async () => {
    llm.script.push({ content: '```json\n' + JSON.stringify({ sql: '```sql\n' + GOOD + ';\n```' }) + '\n```' });
    const a = await ask(FREE);
    expect(a).toMatchObject({ kind: 'result', sql: [GOOD_MOVED] });
    expect(llm.requests).toHaveLength(1); // no repair round, no "model down"
  });

  it('a result longer than the rows kept is told with facts over all its rows (by the database), never as a ranking it did not ask for', async () => {
    const sql = 'SELECT block, count(*) AS incidents FROM crimes GROUP BY block ORDER BY block';
    llm.script.push(sqlReply(sql), { content: JSON.stringify({ facts: ['rows', 'highest-1', 'lowest-1'] }) });
    const a = await ask('how many crimes on each block, listed by block name, with a getaway driver');
    const { rows } = await db.pool.query(sql);
    expect(rows.length).toBeGreaterThan(1_000);
    const max = Math.max(...rows.map((r) => r.incidents));
    const min = Math.min(...rows.map((r) => r.incidents));
    const prompt = llm.requests[1].messages[1].content;
    // the total and the extremes of every row, not of the first 1,000 kept
    const total = rows.reduce((s, r) => s + Number(r.incidents), 0);
    expect(prompt).toContain(`total-1: Incidents in all: ${total.toLocaleString('en-US')}.`);
    const told =
      `The query returned ${rows.length.toLocaleString('en-US')} rows. ` +
      `Highest incidents: ${max} (${rows.find((r) => r.incidents === max).block}). Lowest incidents: ${min} (${rows.find((r) => r.incidents === min).block}).`;
    expect(a).toMatchObject({ kind: 'result', narration: told });
    expect(prompt).not.toContain('comes first');
  });

  it('records the tokens of each LLM call in the trace', async () => {
    llm.script.push(
      { ...sqlReply(BY_YEAR), promptTokens: 900, completionTokens: 40 },
      { content: JSON.stringify({ facts: ['rows'] }), promptTokens: 300, completionTokens: 30 },
    );
    const a = await ask(FREE);
    expect(a.trace.filter((t) => t.tokens).map((t) => [t.node, t.tokens])).toEqual([
      ['generate', 940],
      ['synthesize', 330],
    ]);
  });

  it('stops a slow query at the statement timeout and suggests narrowing it', async () => {
    // planning is instant and running takes minutes: the timeout is what stops it, even on a busy machine
    const slow = testDesk(db, {
      llm: createLlmClient({ baseUrl: llm.baseUrl, model: 'fake-sql', maxRetries: 0 }),
      statementTimeoutMs: 1_500,
    }).desk;
    // each step's estimate is small (the EXPLAIN budget lets it through); run once per outer row, it takes minutes
    llm.script.push(
      sqlReply(
        'SELECT count(*) AS slow FROM crimes a WHERE (SELECT count(*) FROM crimes b, crimes c WHERE b.block <> c.block AND b.id > a.id) > 0',
      ),
    );
    const a = await slow.answer({ platform: 'cli', threadId: 'slow', text: 'how many pairs of crimes are on different blocks?' });
    expect(a).toMatchObject({
      kind: 'error',
      retryable: true,
      message:
        'The query took longer than 1.5 s and was stopped. Try a narrower question, e.g. one year or one district instead of all of them.',
    });
  });

  it('feeds the EXPLAIN error back and accepts the fix', async () => {
    llm.script.push(sqlReply("SELECT count(*) FROM crimes WHERE crime_type = 'THEFT'"), sqlReply(GOOD), {
      content: `${thefts2019} thefts.`,
    });
    const a = await ask(FREE);
    expect(a).toMatchObject({ kind: 'result', sql: [GOOD_MOVED] });
    expect(llm.requests[1].messages[1].content).toMatch(
      /Your previous attempt failed\.\nSQL: SELECT count\(\*\) FROM crimes WHERE crime_type = 'THEFT'\nError: PostgreSQL rejected the query: column "crime_type" does not exist/,
    );
    expect(a.trace.filter((t) => t.node === 'validate').map((t) => t.note)).toEqual(['attempt 1', 'attempt 2']);
  });

  it("gives the model PostgreSQL's HINT with the error", async () => {
    llm.script.push(sqlReply("SELECT count(*) FROM crimes WHERE primary_typ = 'THEFT'"), sqlReply(GOOD), { content: 'ok' });
    await ask(FREE);
    expect(llm.requests[1].messages[1].content).toMatch(
      /column "primary_typ" does not exist \(HINT: Perhaps you meant to reference the column "crimes\.primary_type"\.\)/,
    );
  });

  it('stops after three invalid attempts with a clear message', async () => {
    for (let i = 0; i < 3; i++) llm.script.push(sqlReply('SELECT nothing FROM nowhere'));
    const a = await ask(FREE);
    expect(a).toMatchObject({ kind: 'error', retryable: false });
    expect(a.kind === 'error' && a.message).toMatch(
      /^I could not write a valid query for this after 3 attempts\. The last problem: The query reads nowhere, which is not available/,
    );
    expect(llm.requests).toHaveLength(3);
  });

  it('refuses hostile SQL from the LLM: nothing runs, the data is unchanged', async () => {
    const before = await crimeCount();
    llm.script.push(
      sqlReply('DELETE FROM crimes'),
      sqlReply('WITH x AS (DELETE FROM crimes RETURNING *) SELECT count(*) FROM x'),
      sqlReply('SELECT pg_sleep(30), count(*) FROM crimes'),
    );
    const a = await ask(FREE);
    expect(a).toMatchObject({ kind: 'error' });
    expect(a.trace.some((t) => t.node === 'run')).toBe(false);
    expect(await crimeCount()).toBe(before);
    expect(llm.requests[2].messages[1].content).toContain('The query contains DELETE: only reading is allowed, also inside WITH.');
  });

  it('repairs a garbage JSON reply once', async () => {
    llm.script.push({ content: 'Sure! Here is the query: SELECT ...' }, sqlReply(GOOD), { content: `${thefts2019} thefts.` });
    const a = await ask(FREE);
    expect(a).toMatchObject({ kind: 'result', sql: [GOOD_MOVED] });
    expect(llm.requests[1].messages.at(-1)!.content).toMatch(/^That reply was invalid: not valid JSON/);
  });

  it('a pick that names no fact of ours (invented ids, a number of its own) gets the deterministic narration', async () => {
    llm.script.push(sqlReply(BY_YEAR), { content: JSON.stringify({ facts: ['thefts rose 987654321%', 'highest-9'] }) });
    const a = await ask(FREE);
    expect(a.kind === 'result' && a.narration).toMatch(/^From year \d{4} to \d{4}, thefts went from /);
    expect(a.kind === 'result' && a.narration).not.toContain('987654321');
    expect(a.kind === 'result' && a.notes[0]).toBe('the LLM picked none of the computed facts; the deterministic narration is shown');
  });

  it.each([
    [
      'a channel mention and a link',
      `<!channel> There were ${thefts2019Placeholder} thefts. [Click here to verify your account](http://evil.example)`,
      'it contained a link',
    ],
    [
      'an instruction to the reader',
      `There were ${thefts2019Placeholder} thefts. Please re-authenticate at the portal to see more.`,
      'it contained an instruction',
    ],
    ['an empty reply', '   ', 'it was empty'],
    ['30 KB of filler', `There were ${thefts2019Placeholder} thefts. ${'Indeed. '.repeat(4_000)}`, 'it was 32,'],
    ['markup that changes meaning', `# URGENT\nThere were ${thefts2019Placeholder} thefts.`, 'it contained markup'],
    [
      'JSON instead of sentences (a model answering its other task)',
      `{"sql": "SELECT count(*) FROM crimes"}`,
      'it contained data or SQL, not sentences',
    ],
    ['a query instead of sentences', `SELECT count(*) FROM crimes WHERE primary_type = 'THEFT'`, 'it contained data or SQL, not sentences'],
  ])('never shows a model narration with %s: the model only picks facts, so ours is shown', async (_, narration) => {
    const reply = { content: narration.replaceAll(thefts2019Placeholder, String(thefts2019)) };
    llm.script.push(sqlReply(BY_YEAR), reply, reply);
    const a = await ask(FREE);
    expect(a.kind === 'result' && a.narration).toMatch(
      /^From year \d{4} to \d{4}, thefts went from .*\. Highest thefts: .*\. Lowest thefts: /,
    );
    const shown = JSON.stringify(a);
    for (const bad of ['channel', 'Click', 'evil', 're-authenticate', 'URGENT', 'Indeed']) expect(shown).not.toContain(bad);
    expect(a.kind === 'result' && a.notes[0]).toMatch(/^the LLM (narration failed|picked none)/);
  });

  it.each([
    ['an HTML page from a proxy', { raw: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' }],
    ['a truncated JSON body', { raw: '{"id": "x", "choices": [{"message": {"content": "{\\"sql', contentType: 'application/json' }],
  ])('a reply that is %s is said as such, never "something went wrong"', async (_, reply) => {
    llm.script.push(reply, reply, reply, reply);
    const a = await ask(FREE);
    expect(a).toMatchObject({ kind: 'error', retryable: true });
    expect(a.kind === 'error' && a.message).toMatch(
      /^The language model could not help with this just now: the LLM service sent (a reply that is not a chat completion|a malformed reply)/,
    );
  });

  it('one deadline for the model per question: past it the answer comes without the model, and says so', async () => {
    const hurried = testDesk(db, {
      llm: createLlmClient({ baseUrl: llm.baseUrl, model: 'fake-sql', maxRetries: 0 }),
      answerDeadlineMs: 1_500,
    }).desk;
    const askHurried = (text: string, thread: string) => hurried.answer({ platform: 'cli', threadId: thread, text });
    // the SQL arrives in time, the narration does not: the deterministic narration, with the reason
    llm.script.push(sqlReply(BY_YEAR), { content: JSON.stringify({ facts: ['rows'] }), delayMs: 4_000 });
    let started = performance.now();
    const a = await askHurried(FREE, 'deadline-1');
    expect(performance.now() - started).toBeLessThan(3_500);
    expect(a.kind === 'result' && a.narration).toMatch(/^From year \d{4} to \d{4}, thefts went from /);
    expect(a.kind === 'result' && a.notes[0]).toMatch(/the LLM narration failed \(the language model did not answer within 1\.5 s\)/);
    // the model does not even write the query in time: said plainly, well before the model would have answered
    llm.script.length = 0;
    llm.script.push({ ...sqlReply(GOOD), delayMs: 4_000 });
    started = performance.now();
    const b = await askHurried(FREE, 'deadline-2');
    expect(performance.now() - started).toBeLessThan(3_500);
    expect(b).toMatchObject({
      kind: 'error',
      retryable: true,
      message: expect.stringMatching(
        /^The language model could not help with this just now: the language model did not answer within 1\.5 s/,
      ),
    });
  });

  it('keeps the numbers when the LLM narration fails', async () => {
    llm.script.push(sqlReply(BY_YEAR), { status: 500 }, { status: 500 });
    const a = await ask(FREE);
    expect(a.kind === 'result' && a.narration).toMatch(/^From year \d{4} to \d{4}, thefts went from /);
    expect(a.kind === 'result' && a.notes[0]).toMatch(/^the LLM narration failed \(the LLM service answered HTTP 500\)/);
  });

  it('answers what the query plan can say without calling the LLM; a down LLM is said plainly for the rest', async () => {
    const a = await ask('How many thefts were reported in 2019?');
    expect(a).toMatchObject({ kind: 'result', headline: `Thefts in 2019, all of Chicago: ${thefts2019.toLocaleString('en-US')}` });
    expect(a.trace.find((t) => t.node === 'generate')?.note).toBe('offline: query plan');
    expect(llm.requests).toHaveLength(0);
    llm.script.push({ status: 503 }, { status: 503 });
    const b = await ask('Which crimes tend to cluster within an hour of each other?');
    expect(b).toMatchObject({ kind: 'error', retryable: true });
    expect(b.kind === 'error' && b.message).toMatch(
      /^The language model could not help with this just now: the LLM service answered HTTP 503/,
    );
  });

  it('asks for clarification before calling the LLM, then puts the chosen definition in the prompt', async () => {
    const q = await ask('how many robberies at night in 2019 involved a getaway driver?', 'llm-night');
    expect(q).toMatchObject({ kind: 'clarify', term: 'night' });
    expect(llm.requests).toHaveLength(0);
    llm.script.push(
      sqlReply(
        "SELECT count(*) AS robberies FROM crimes WHERE primary_type = 'ROBBERY' AND year = 2019 AND (extract(hour FROM date) >= 20 OR extract(hour FROM date) < 6)",
      ),
      { content: 'Done.' },
    );
    const a = await desk.choose({ platform: 'cli', threadId: 'llm-night' }, 'night', '20-06');
    expect(a).toMatchObject({ kind: 'result', assumptions: ['night: 20:00-06:00'] });
    expect(llm.requests[0].messages[1].content).toContain(
      '- night: 20:00-06:00 (from 8 pm) -> (extract(hour FROM date) >= 20 OR extract(hour FROM date) < 6)',
    );
  });

  it("the paper's per-block wording asks which average is meant before the model writes anything", async () => {
    const q = await ask('What is the average number of days between consecutive crimes on the same block?', 'consecutive');
    expect(q).toMatchObject({ kind: 'clarify', term: 'per_block_average' });
    expect(llm.requests).toHaveLength(0);
  });

  it('a follow-up carries the last question and SQL into the prompt', async () => {
    llm.script.push(sqlReply(GOOD), { content: 'ok' });
    await ask(FREE, 'fu');
    llm.script.push(sqlReply(GOOD.replace('2019', '2020')), { content: 'ok' });
    await ask('and in 2020?', 'fu');
    expect(llm.requests[2].messages[1].content).toContain(
      `This message edits the last answer in this conversation:\nQ: ${FREE}\nSQL: ${GOOD}`,
    );
  });

  it('a complete question after a free-SQL answer inherits nothing: the model is not shown the earlier answer', async () => {
    llm.script.push(sqlReply(GOOD), { content: 'ok' });
    await ask(FREE, 'fu-complete');
    const before = llm.requests.length;
    llm.script.push(sqlReply(GOOD), { content: 'ok' });
    await ask('How often were thefts in 2019 reported by a victim who later recanted?', 'fu-complete');
    expect(llm.requests[before].messages[1].content).not.toContain('edits the last answer');
  });

  it('the model fills the query plan first: our compiler writes the SQL, our narrator tells it, the trace says so', async () => {
    const plan = { measure: { kind: 'count' }, filters: { types: ['THEFT'], time: { from: '2020-01-01', to: '2021-01-01' } } };
    llm.script.push({ content: JSON.stringify({ plan }) });
    const a = await ask('how many thefts were there in the year covid reached chicago?', 'plan');
    const truth = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2020`)).rows[0].n;
    expect(a).toMatchObject({
      kind: 'result',
      headline: `Thefts in 2020, all of Chicago: ${truth.toLocaleString('en-US')}`,
      understood: ['thefts', 'in 2020', 'all of Chicago'],
    });
    expect(a.kind === 'result' && a.sql[0]).toBe(
      "SELECT coalesce(sum(n), 0) AS incidents\nFROM crimes_by_year_type\nWHERE primary_type = 'THEFT'\n  AND year = 2020",
    );
    expect(a.trace.find((t) => t.node === 'generate')?.note).toBe('attempt 1: llm: query plan');
    expect(llm.requests).toHaveLength(1); // no narration call: the plan tells it
    const prompt = llm.requests[0].messages[1].content;
    expect(prompt).toContain('"measure"');
    expect(prompt).toMatch(/the data runs from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}/);
    // a follow-up in the thread edits that plan without the model
    const next = await ask('and in 2021?', 'plan');
    expect(next).toMatchObject({ kind: 'result', understood: ['thefts', 'in 2021', 'all of Chicago'] });
    expect(llm.requests).toHaveLength(1);
  });

  it('a plan that needs a definition asks first, then answers with it; a malformed plan gets one repair', async () => {
    const plan = {
      measure: { kind: 'count' },
      filters: { types: ['ROBBERY'], night: true, time: { from: '2019-01-01', to: '2020-01-01' } },
    };
    const q = await ask('robberies after dark in the year before covid?', 'plan-night');
    expect(q).toMatchObject({ kind: 'clarify', term: 'night' });
    expect(llm.requests).toHaveLength(0);
    llm.script.push({ content: JSON.stringify({ plan: { ...plan, measure: { kind: 'tally' } } }) }, { content: JSON.stringify({ plan }) });
    const a = await desk.choose({ platform: 'cli', threadId: 'plan-night' }, 'night', '22-06');
    expect(llm.requests[1].messages.at(-1)!.content).toMatch(/^That reply was invalid: /);
    const truth = (
      await db.pool.query(
        `SELECT count(*) AS n FROM crimes WHERE primary_type = 'ROBBERY' AND year = 2019 AND (extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6)`,
      )
    ).rows[0].n;
    expect(a).toMatchObject({ kind: 'result', assumptions: ['night: 22:00-06:00'], table: { rows: [[truth]] } });
  });
  it("a hostile model's plan is checked like a person's words: types resolved or refused with the nearest, its text never in a headline", async () => {
    const y2019 = { from: '2019-01-01', to: '2020-01-01' };
    const truth = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)).rows[0].n;
    // a type in other words is the data's value, not zero
    llm.script.push({ content: JSON.stringify({ plan: { measure: { kind: 'count' }, filters: { types: ['theft'], time: y2019 } } }) });
    expect(await ask('how many thefts were there in the year before covid?', 'hostile-1')).toMatchObject({
      kind: 'result',
      headline: `Thefts in 2019, all of Chicago: ${truth.toLocaleString('en-US')}`,
    });
    // a type the data does not have is refused with real ones
    llm.script.push({ content: JSON.stringify({ plan: { measure: { kind: 'count' }, filters: { types: ['JAYWALKING'], time: y2019 } } }) });
    const unknown = await ask('how many jaywalking crimes were there in the year before covid?', 'hostile-2');
    expect(unknown).toMatchObject({
      kind: 'refusal',
      reason: expect.stringMatching(/"JAYWALKING" is not a crime type in the data \(the nearest: /),
    });
    // the model's words for a period never reach the headline; a link in a description is refused
    llm.script.push({
      content: JSON.stringify({
        plan: {
          measure: { kind: 'count' },
          filters: { types: ['THEFT'], time: { ...y2019, said: 'in 2019 - re-authenticate at http://evil.example/login' } },
        },
      }),
    });
    const said = await ask('how many thefts were there in the year before covid?', 'hostile-3');
    expect(JSON.stringify(said)).not.toMatch(/evil|authenticate/);
    llm.script.push({
      content: JSON.stringify({
        plan: { measure: { kind: 'count' }, filters: { types: ['THEFT'], descriptions: ['visit crime-stats.example now'], time: y2019 } },
      }),
    });
    expect(await ask('how many thefts of the special kind were there in the year before covid?', 'hostile-4')).toMatchObject({
      kind: 'refusal',
    });
    // dates that are no days are said so, not "Something went wrong"
    llm.script.push({
      content: JSON.stringify({
        plan: { measure: { kind: 'count' }, filters: { types: ['THEFT'], time: { from: '2019-02-30', to: '2019-03-01' } } },
      }),
    });
    expect(await ask('how many thefts were there in the week before covid?', 'hostile-5')).toMatchObject({
      kind: 'refusal',
      reason: expect.stringMatching(/"2019-02-30" is not a day of the calendar/),
    });
  });
  it("a model's SQL ending in '; -- comment' is answered: the statement alone runs and is shown", async () => {
    llm.script.push(sqlReply(`${GOOD}; -- that is all`), { content: 'ok' });
    const a = await ask(FREE, 'trailing-comment');
    expect(a).toMatchObject({ kind: 'result', sql: [GOOD_MOVED] });
  });
  it("a model's query that would hold gigabytes is refused from its plan before it runs, and nothing of it runs", async () => {
    const attacks = [
      'SELECT cardinality(array_agg(c.description)) FROM crimes c, generate_series(1, 2000) g',
      "SELECT length(string_agg(c.description, ',')) FROM crimes c CROSS JOIN generate_series(1, 2000) g",
      'SELECT c1.id FROM crimes c1, crimes c2, crimes c3 ORDER BY c1.description',
    ];
    for (const sql of attacks) {
      llm.script.push(sqlReply(sql), sqlReply(sql), sqlReply(sql));
      const a = await ask(`${FREE} (${sql.length})`, `too-big-${sql.length}`);
      expect(a, sql).toMatchObject({ kind: 'error', message: expect.stringMatching(/The query is too big to run: /) });
      // nothing of it ran: no backend of the reader is busy with it
      const running = await db.pool.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()`,
        [`%${sql.slice(0, 40)}%`],
      );
      expect(running.rows[0].n).toBe(0);
    }
  });
});
