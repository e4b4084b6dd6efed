// A hostile model inside a conversation: threads of two to four turns through
// the real desk on a real database, the model a scripted OpenAI-compatible
// server over HTTP. The first turns are read by our own reader; the fragment
// that follows carries words it cannot place, so the model is asked, with the
// last answer in its prompt. What the person sees must say what ran (from the
// plan or SQL that ran, never the model's words), a model that changed a slot
// the person did not speak to must be said so, and what the model's SQL tries
// at that turn (writes, other tables, bombs, secrets) must be refused or
// stopped, plainly, with nothing leaked and nothing changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../src/core/answer.js';
import { createLlmClient } from '../../src/llm/client.js';
import { llmFromConfig } from '../../src/llm/from-config.js';
import { REDACTED } from '../../src/llm/secret-scrub.js';
import { loadConfig } from '../../src/config/env.js';
import { renderAnswerMessages } from '../../src/channels/slack/render-blocks.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { useFakeLlm, type ScriptedReply } from '../helpers/fake-llm.js';

const API_KEY = 'sk-test-SECRET-7f3a9c0d21e54b6a';
const DB_PASSWORD = 'db-SECRET-pw-5b1e77c2';
const TIMEOUT_MS = 1_500;

let db: TestDatabase;
const model = useFakeLlm();
let t: ReturnType<typeof testDesk>;
/** the count of a filter, by the database */
const count = async (where: string) =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM crimes WHERE ${where}`)).rows[0].n;
let thread = 0;
/** a conversation: each call is the next turn of the same thread */
const conversation = () => {
  const id = `adv-${thread++}`;
  return (text: string) => t.desk.answer({ platform: 'cli', threadId: id, text });
};
const plan = (filters: Record<string, unknown>) => ({ content: JSON.stringify({ plan: { measure: { kind: 'count' }, filters } }) });
const sql = (text: string, question?: string) => ({ content: JSON.stringify({ sql: text, ...(question ? { question } : {}) }) });
const script = (...replies: ScriptedReply[]) => model.llm.script.push(...replies);
const APRIL = { from: '2019-04-01', to: '2019-05-01' };
const MAY = { from: '2019-05-01', to: '2019-06-01' };
/** a fragment the reader reads in part ("April") and the model is asked for ("with a getaway car") */
const FRAGMENT = 'and April, with a getaway car?';

function result(a: Answer) {
  if (a.kind !== 'result') throw new Error(`not a result: ${JSON.stringify(a).slice(0, 600)}`);
  return a;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  t = testDesk(db, {
    statementTimeoutMs: TIMEOUT_MS,
    llm: createLlmClient({
      baseUrl: model.llm.baseUrl,
      apiKey: API_KEY,
      model: 'hostile',
      maxRetries: 0,
      limits: { requestsPerMinute: 1e6, tokensPerMinute: 1e9 },
    }),
  });
}, 120_000);
afterAll(async () => {
  await db?.drop();
});

describe('a fragment the model answers with a plan of its own', () => {
  it('the model answers May for "and April": the answer says May, and a note says it read April', async () => {
    const ask = conversation();
    expect(result(await ask('How many thefts were reported in 2019?')).understood).toEqual(['thefts', 'in 2019', 'all of Chicago']);
    script(plan({ types: ['THEFT'], time: MAY }));
    const a = result(await ask(FRAGMENT));
    expect(model.llm.requests).toHaveLength(1);
    // the model was shown the answer it edits
    expect(model.llm.requests[0].messages[1].content).toContain('This message edits the last answer in this conversation');
    // what ran is said from the plan that ran: May, thefts, and the count is May's
    expect(a.understood).toEqual(['thefts', 'in 2019-05', 'all of Chicago']);
    expect(a.table?.rows).toEqual([[await count(`primary_type = 'THEFT' AND date >= '2019-05-01' AND date < '2019-06-01'`)]]);
    expect(a.notes).toContain(
      `The model's query differs from what I read in your words: I read "in 2019-04"; the answer counts "in 2019-05" instead. Check that this is the question you meant.`,
    );
    // the thread remembers what ran, not the model's claim: the next fragment edits May
    expect(a.resolved?.question).toBe('How many thefts were reported in may 2019?');
  });

  it('the model drops the theft filter: the answer counts all crimes, says so, and the note names thefts', async () => {
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(plan({ time: APRIL }));
    const a = result(await ask(FRAGMENT));
    expect(a.understood).toEqual(['crimes', 'in 2019-04', 'all of Chicago']);
    expect(a.table?.rows).toEqual([[await count(`date >= '2019-04-01' AND date < '2019-05-01'`)]]);
    expect(a.notes.join(' ')).toMatch(
      /^The model's query differs from what I read in your words: I read "thefts"; the answer counts "crimes" instead\./,
    );
  });

  it('a model that keeps what the person did not change gets no such note', async () => {
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(plan({ types: ['THEFT'], time: APRIL }));
    const a = result(await ask(FRAGMENT));
    expect(a.understood).toEqual(['thefts', 'in 2019-04', 'all of Chicago']);
    expect(a.notes.join(' ')).not.toMatch(/differs from what I read/);
  });
});

describe('a question on its own the model answers with a plan of its own', () => {
  it('the model counts burglaries in 2018 for "thefts in 2019 with a getaway driver": the note names what the words said', async () => {
    script(plan({ types: ['BURGLARY'], time: { from: '2018-01-01', to: '2019-01-01' } }));
    const a = result(await conversation()('how many thefts in 2019 involved a getaway driver'));
    expect(a.understood).toEqual(['burglaries', 'in 2018', 'all of Chicago']);
    expect(a.notes).toContain(
      `The model's query differs from what I read in your words: I read "thefts", "in 2019"; the answer counts "burglaries", "in 2018" instead. Check that this is the question you meant.`,
    );
  });

  it('a slot the words left open is the model\'s to fill: "the year covid reached chicago" as 2020 gets no note', async () => {
    script(plan({ types: ['THEFT'], time: { from: '2020-01-01', to: '2021-01-01' } }));
    const a = result(await conversation()('how many thefts were there in the year covid reached chicago?'));
    expect(a.understood).toEqual(['thefts', 'in 2020', 'all of Chicago']);
    expect(a.notes.join(' ')).not.toMatch(/differs from what I read/);
  });
});

describe('a fragment the model answers with free SQL and a restated question', () => {
  it('SQL for May restated as April: the restatement is dropped, and the note says which month it named', async () => {
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(
      sql(
        "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND date >= '2019-05-01' AND date < '2019-06-01'",
        'How many thefts in April 2019 involved a getaway car?',
      ),
    );
    const a = result(await ask(FRAGMENT));
    expect(a.sql[0]).toContain("'2019-05-01'");
    // nothing of the model's words heads the answer: the person's own words, and the SQL that ran beneath
    expect(a.headline).toBe(FRAGMENT);
    expect(a.resolved).toBeUndefined();
    expect(a.notes).toContain(
      "The model's restatement of this follow-up did not match its query (the restated question names 2019-04, the query's dates do not), so the question is kept in your words.",
    );
  });

  it('SQL without the theft filter restated as thefts: the plan reader answers the restatement, gets other rows, and it is dropped', async () => {
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(
      sql(
        "SELECT count(*) AS crimes FROM crimes WHERE date >= '2019-04-01' AND date < '2019-05-01'",
        'How many thefts were reported in April 2019?',
      ),
    );
    const a = result(await ask(FRAGMENT));
    expect(a.table?.columns).toEqual(['crimes']);
    expect(a.notes.join(' ')).toMatch(
      /restatement of this follow-up did not match its query \(the restated question, read and answered by/,
    );
    expect(a.headline).toBe(FRAGMENT);
  });

  it('SQL for May or without the theft filter and no restatement at all: the query is checked against what I read', async () => {
    for (const [query, why] of [
      [
        "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND date >= '2019-05-01' AND date < '2019-06-01'",
        "what I read in your words names 2019-04, the query's dates do not",
      ],
      [
        "SELECT count(*) AS crimes FROM crimes WHERE date >= '2019-04-01' AND date < '2019-05-01'",
        'what I read in your words names theft, the query does not',
      ],
    ]) {
      const ask = conversation();
      await ask('How many thefts were reported in 2019?');
      script(sql(query));
      const a = result(await ask(FRAGMENT));
      expect(a.notes).toContain(
        `The model's query differs from what I read in your words (${why}). Check that this is the question you meant.`,
      );
    }
    // a query that reads what was read gets no note
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(
      sql(
        "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND date >= '2019-04-01' AND date < '2019-05-01' AND description ILIKE '%VEHICLE%'",
      ),
    );
    expect(result(await ask(FRAGMENT)).notes.join(' ')).not.toMatch(/differs from what I read/);
  });

  it('a question on its own answered with SQL for other years or types is said so; SQL that pins what the words left open is not', async () => {
    script(sql("SELECT count(*) AS n FROM crimes WHERE primary_type = 'BURGLARY' AND year = 2018 AND description ILIKE '%FORCIBLE%'"));
    const a = result(await conversation()('how many thefts in 2019 involved a getaway driver'));
    expect(a.notes).toContain(
      "The model's query differs from what I read in your words (what I read in your words names 2019, the query does not). Check that this is the question you meant.",
    );
    script(sql("SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND date >= '2020-01-01' AND date < '2021-01-01'"));
    const open = result(await conversation()('how many thefts were there in the year covid reached chicago?'));
    expect(open.notes.join(' ')).not.toMatch(/differs from what I read/);
    // a December after thefts in 2019: the period ends on 2020-01-01, which reads no 2020
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(
      sql(
        "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND date >= '2019-12-01' AND date < '2020-01-01' AND description ILIKE '%VEHICLE%'",
      ),
    );
    expect(result(await ask('and December, with a getaway car?')).notes.join(' ')).not.toMatch(/differs from what I read/);
  });

  it('after a free-SQL answer, "compare with 2018" answered with 2017: the restatement naming 2018 is dropped', async () => {
    const ask = conversation();
    script(sql("SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019"));
    result(await ask('how many thefts in 2019 involved a getaway driver'));
    model.llm.requests.length = 0;
    script(
      sql(
        "SELECT year, count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year IN (2019, 2017) GROUP BY year ORDER BY year",
        'How many thefts in 2019 compared with 2018 involved a getaway driver?',
      ),
    );
    const a = result(await ask('compare with 2018'));
    expect(model.llm.requests[0].messages[1].content).toContain('Q: how many thefts in 2019 involved a getaway driver');
    expect(a.notes.join(' ')).toMatch(/did not match its query \(the restated question names 2018, the query does not\)/);
    expect(a.table?.rows.map((r) => r[0])).toEqual(['2017', '2019']);
  });
});

describe("the model's SQL at the second turn of a thread", () => {
  // each is one attack class at the fragment's turn; the corpus of test/security covers every variant at the first
  const attacks: [string, string][] = [
    ['a write in a CTE', "WITH gone AS (UPDATE crimes SET primary_type = 'X' RETURNING 1) SELECT count(*) FROM gone"],
    ['a DROP', 'DROP TABLE crimes'],
    ['a row lock', 'SELECT id FROM crimes FOR UPDATE'],
    ['set_config', "SELECT set_config('default_transaction_read_only', 'off', false), count(*) FROM crimes"],
    ['pg_sleep', 'SELECT pg_sleep(30), count(*) FROM crimes'],
    ['dblink', "SELECT * FROM dblink('dbname=test', 'DELETE FROM crimes') AS t(x int)"],
    ['COPY', "COPY crimes TO '/tmp/h7-pwned.csv'"],
    ['pg_read_file', "SELECT pg_read_file('/etc/passwd'), count(*) FROM crimes"],
    ['lo_import', "SELECT lo_import('/etc/passwd'), count(*) FROM crimes"],
    ['pg_authid', 'SELECT rolname, rolpassword FROM pg_authid'],
    ['thread memory', 'SELECT key, value FROM datadesk_app.keyv_store'],
    ['the audit log', 'SELECT question FROM datadesk_app.audit_log'],
  ];
  it.each(attacks)('%s: refused three times in plain words, nothing ran, nothing changed', async (_name, attack) => {
    const before = await count('true');
    const ask = conversation();
    script(sql("SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019"));
    result(await ask('how many thefts in 2019 involved a getaway driver'));
    script(sql(attack), sql(attack), sql(attack));
    const a = await ask('and in 2020?');
    expect(a.kind).toBe('error');
    expect(a.kind === 'error' && a.message).toMatch(
      /^I could not write a valid query for this after 3 attempts\. The last problem: .+ Try rephrasing/,
    );
    expect(a.trace.map((s) => s.node)).not.toContain('run');
    expect(await count('true')).toBe(before);
    expect(await count(`primary_type = 'X'`)).toBe(0);
  });

  it('a query PostgreSQL stops on its rows (division by zero, a bad cast) goes back to the model, then is said plainly, never "something went wrong"', async () => {
    const lines = t.logger.lines.length;
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    const zero = "SELECT count(*) / (count(*) - count(*)) AS n FROM crimes WHERE primary_type = 'THEFT' AND description ILIKE '%VEHICLE%'";
    script(sql(zero), sql('SELECT description::int AS n FROM crimes'), sql(zero));
    const a = await ask(FRAGMENT);
    expect(a).toMatchObject({
      kind: 'error',
      retryable: false,
      message:
        'I could not write a valid query for this after 3 attempts. The last problem: PostgreSQL stopped the query while it ran: division by zero. Try rephrasing, or ask for something narrower.',
    });
    expect(model.llm.requests.at(-1)!.messages[1].content).toMatch(
      /Error: PostgreSQL stopped the query while it ran: invalid input syntax for type integer/,
    );
    expect(t.logger.lines.slice(lines).join('\n')).not.toMatch(/sql agent failed/);
    // told, a model that fixes it is answered
    script(sql(zero), sql("SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND description ILIKE '%VEHICLE%'"));
    expect(result(await conversation()('how many thefts in 2019 involved a getaway driver')).table?.columns).toEqual(['thefts']);
  });

  it('a cross join of crimes with itself is stopped, in time, with a sentence that says what to do', async () => {
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    const bomb =
      "SELECT count(*) AS pairs FROM crimes a, crimes b, crimes c WHERE a.description || b.description || c.description LIKE '%getaway%'";
    script(sql(bomb), sql(bomb), sql(bomb));
    const started = performance.now();
    const a = await ask(FRAGMENT);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 4_000);
    expect(a.kind).toBe('error');
    expect(a.kind === 'error' && a.message).toMatch(
      /^(The query took longer than 1\.5 s and was stopped\. Try a narrower question|I could not write a valid query for this after 3 attempts\. The last problem: The query is too big to run: )/,
    );
  });
});

describe('column names that say what the numbers are not', () => {
  const ask = () => conversation()('how many thefts in 2019 involved a getaway driver');
  it('a count named as a percentage, a count of 2019 named for 2018, all crimes named thefts: sent back, and refused in our words if the model insists', async () => {
    for (const [lie, problem] of [
      ["SELECT count(*) AS theft_percent FROM crimes WHERE primary_type = 'THEFT' AND year = 2019", 'names a ratio, but it is a count'],
      [
        "SELECT count(*) AS thefts_2018 FROM crimes WHERE primary_type = 'THEFT' AND year = 2019",
        'names 2018, but the query does not read 2018',
      ],
      ['SELECT count(*) AS thefts FROM crimes WHERE year = 2019', 'names thefts, but the query does not select THEFT'],
    ]) {
      model.llm.requests.length = 0;
      script(sql(lie), sql(lie), sql(lie));
      const a = await ask();
      expect(a.kind === 'error' && a.message, lie).toContain(problem);
      expect(model.llm.requests[1].messages[1].content).toContain(problem);
      expect(a.trace.map((s) => s.node)).not.toContain('run');
    }
  });

  it('told, a model that names the count for what it is gets the answer', async () => {
    script(
      sql("SELECT count(*) AS theft_percent FROM crimes WHERE primary_type = 'THEFT' AND year = 2019"),
      sql("SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019"),
    );
    const a = result(await ask());
    expect(a.table).toMatchObject({ columns: ['thefts'], rows: [[await count(`primary_type = 'THEFT' AND year = 2019`)]] });
    expect(JSON.stringify(a)).not.toMatch(/percent/i);
  });
});

describe('what a hostile model writes never reaches a person unchecked', () => {
  it('Slack markup, mentions, links, HTML and very long text in its restatement, column names and fact picks are not shown', async () => {
    const hostile = '<!channel> <@U123> <https://evil.example|click> <script>alert(1)</script>';
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(
      // a column named with markup is sent back; the next query has a plain name and a restatement full of markup
      sql(`SELECT primary_type AS "${hostile.slice(0, 40)}", count(*) AS n FROM crimes WHERE year = 2019 GROUP BY 1 ORDER BY 2 DESC`),
      sql(
        "SELECT primary_type, count(*) AS n FROM crimes WHERE year = 2019 AND date >= '2019-04-01' AND date < '2019-05-01' GROUP BY 1 ORDER BY 2 DESC",
        `${hostile} April 2019`,
      ),
      // the narration pick: ids of no fact of ours, and numbers of its own
      { content: JSON.stringify({ facts: [hostile.slice(0, 40), '9,999 thefts, up 250%'] }) },
    );
    const a = result(await ask(FRAGMENT));
    const slack = JSON.stringify(renderAnswerMessages(a, { feedback: true, exportKey: 'k' }));
    for (const bad of ['<!channel>', '<@U123>', 'evil.example', '<script>', '9,999', '250%'])
      expect(JSON.stringify(a) + slack, bad).not.toContain(bad);
    // the narration is our facts over the rows, numbers the database gave
    expect(a.table?.rowCount).toBeGreaterThan(0);
    // a reply of 200 KB of text is no query: said in our words, nothing of it shown
    script({ content: 'A'.repeat(200_000) }, { content: 'B'.repeat(200_000) });
    const long = await conversation()('which crimes involved a getaway driver');
    expect(long).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^The language model could not help with this just now: /),
    });
    expect(JSON.stringify(long)).not.toMatch(/AAAAAAAAAA|BBBBBBBBBB/);
  });
});

describe('secrets a hostile model echoes', () => {
  /** every way a model's text reaches an answer: a literal PostgreSQL quotes in its error, a column name, a restatement, a pick */
  const echoes = (secret: string): ScriptedReply[] => [
    sql(`SELECT count(*) AS "${secret}" FROM crimes`),
    sql(`SELECT count(*) AS n FROM crimes WHERE id = '${secret}'`),
    sql(`SELECT primary_type, count(*) AS n FROM crimes WHERE description <> '${secret}' GROUP BY 1 ORDER BY 2 DESC`, `${secret} thefts`),
    { content: JSON.stringify({ facts: [secret, 'top'] }) },
  ];
  /** the model did send it: what the client passed on (the failed SQL fed back to the model) carries the redaction */
  const redactedOnTheWay = () => model.llm.requests.some((r) => r.messages.some((m) => m.content.includes(`'${REDACTED}'`)));

  it('the API key the endpoint saw, sent back in SQL, names, a restatement and an error body: never in a reply or a log', async () => {
    const ask = conversation();
    await ask('How many thefts were reported in 2019?');
    script(...echoes(API_KEY));
    const a = await ask(FRAGMENT);
    expect(JSON.stringify(a)).not.toContain(API_KEY);
    expect(JSON.stringify(renderAnswerMessages(a, {}))).not.toContain(API_KEY);
    expect(redactedOnTheWay()).toBe(true);
    script({ status: 500, body: { error: { message: `invalid key ${API_KEY}` } } });
    const failed = await conversation()('which crimes involved a getaway driver');
    expect(failed.kind).toBe('error');
    expect(JSON.stringify(failed)).not.toContain(API_KEY);
    expect(t.logger.lines.join('\n')).not.toContain(API_KEY);
  });

  it("DATABASE_URL's password and the Slack token, configured and echoed by the model: redacted like the key", async () => {
    const config = loadConfig({
      DATABASE_URL: `postgres://datadesk:${DB_PASSWORD}@127.0.0.1:5432/datadesk`,
      SLACK_BOT_TOKEN: 'xoxb-SECRET-1234567890',
      SLACK_SIGNING_SECRET: 'signing-SECRET-abcdef',
      LLM_BASE_URL: model.llm.baseUrl,
      LLM_API_KEY: API_KEY,
      LLM_MODEL: 'hostile',
    });
    const { desk, logger } = testDesk(db, { llm: llmFromConfig(config), statementTimeoutMs: TIMEOUT_MS });
    for (const secret of [DB_PASSWORD, 'xoxb-SECRET-1234567890']) {
      const id = `adv-config-${secret.length}`;
      await desk.answer({ platform: 'cli', threadId: id, text: 'How many thefts were reported in 2019?' });
      script(...echoes(secret));
      const a = await desk.answer({ platform: 'cli', threadId: id, text: FRAGMENT });
      expect(JSON.stringify(a), secret).not.toContain(secret);
      expect(redactedOnTheWay()).toBe(true);
      expect(logger.lines.join('\n')).not.toContain(secret);
    }
  });
});
