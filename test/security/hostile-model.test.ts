// A hostile model, end to end: the scripted LLM answers the generation prompt
// with each statement of the hostile corpus (three times: the agent retries
// up to three attempts), and the whole desk answers a user's question on a
// real database with a little crime data. What an attacker would look for
// afterwards is checked: the answer shows nothing from pg_* or the app's
// tables, nothing of it ran, and the database is as it was (data rows, app
// tables, roles, privileges, objects, large objects, no file written). The
// resource bombs the guard lets through are stopped by the limits (statement
// timeout plus the watchdog, the result-bytes cap, temp_file_limit), in time.
import { resultStatement } from '../../src/agents/sql/execute.js';
import { existsSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Answer } from '../../src/core/answer.js';
import { DataDesk } from '../../src/agents/desk.js';
import type { SqlAgentDeps } from '../../src/agents/sql/state.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { checkSql } from '../../src/db/sql-guard.js';
import { READS_NO_DATA } from '../../src/agents/sql/nodes/validate-node.js';
import { createLlmClient } from '../../src/llm/client.js';
import { ThreadMemory, createKeyv, type ThreadState } from '../../src/memory/thread-memory.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { byClass, loadCorpus, type Hostile } from './corpus.js';
import { fingerprint, type Fingerprint } from './fingerprint.js';

const TIMEOUT_MS = 1_000;
const MAX_RESULT_BYTES = 1_048_576;
/** the reader role's temp_file_limit here: small, so that a sort bomb reaches it in well under the timeout */
const TEMP_FILE_LIMIT = '8MB';
/** a question only the model can answer (no verified query or plan covers it), so its SQL is what runs */
const QUESTION = 'Which crimes tend to cluster within an hour of each other?';

const { entries: CORPUS, pwnedPath } = loadCorpus();
const REFUSED = byClass(CORPUS.filter((h) => h.reason));
const BOMBS = CORPUS.filter((h) => h.limit);

let db: TestDatabase;
let reader: { url: string; role: string; pool: pg.Pool };
let llm: FakeLlm;
let desk: DataDesk;
/** every statement each pool's clients were sent */
const sent = { app: [] as string[], reader: [] as string[] };
/** values planted in the app's tables and the system that no answer may ever show */
let secrets: string[];

/** Records every statement a pool's clients are sent (the agent never sees this). */
function recordStatements(pool: pg.Pool, log: string[]): void {
  const recorded = new WeakSet<object>();
  pool.on('acquire', (client) => {
    if (recorded.has(client)) return;
    recorded.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string };
      log.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return query(...args);
    };
  });
}

const logger = createMemoryLogger();
/** the last failure the SQL agent logged */
const deskWith = (deps: Partial<ConstructorParameters<typeof DataDesk>[0]>) =>
  new DataDesk({
    readPool: db.pool,
    writePool: db.pool,
    logger,
    memory: new ThreadMemory(createKeyv<ThreadState>('memory', 'thread'), 3_600_000),
    statementTimeoutMs: TIMEOUT_MS,
    displayRows: 20,
    glossaryDefaults: {},
    ...deps,
  });

const sqlReply = (sql: string) => ({ content: JSON.stringify({ sql }) });
/** the scripted model, without the client's requests-per-minute budget (hundreds of calls a minute here) */
const model = () =>
  createLlmClient({
    baseUrl: llm.baseUrl,
    apiKey: 'k',
    model: 'fake-sql',
    maxRetries: 0,
    limits: { requestsPerMinute: 1e9, tokensPerMinute: 1e12 },
  });
let thread = 0;
const ask = (d: DataDesk = desk) => d.answer({ platform: 'cli', threadId: `hostile-${thread++}`, text: QUESTION });
const ran = (log: string[], sql: string) => log.some((q) => q.includes(sql.trim().replace(/;+\s*$/, '')));
const auditRows = async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM datadesk_app.audit_log')).rows[0].n;

/** The fingerprint with the audit log's count taken out: every answer adds its own row there. */
async function state(): Promise<Fingerprint> {
  const f = await fingerprint(db.pool, reader.role);
  delete f.app.audit_log;
  return f;
}

function expectNoSecrets(answer: Answer): void {
  const shown = JSON.stringify(answer);
  for (const secret of secrets) expect(shown, `the answer shows ${secret}`).not.toContain(secret);
}

beforeAll(async () => {
  db = await createTestDatabase();
  reader = db.reader!;
  await loadCrimes(db.pool, 2_000);
  // tighter than production so that a sort bomb hits it fast; set before the reader's first session
  await db.pool.query(`ALTER ROLE ${reader.role} SET temp_file_limit = '${TEMP_FILE_LIMIT}'`);
  const tag = randomBytes(6).toString('hex');
  secrets = [`CANARY-audit-${tag}`, `CANARY-thread-${tag}`, `CANARY-conversation-${tag}`, `CANARY-digest-${tag}`];
  await db.pool.query(`INSERT INTO datadesk_app.audit_log (platform, question, route, status) VALUES ('slack', $1, 'sql', 'result')`, [
    secrets[0],
  ]);
  await db.pool.query(`INSERT INTO datadesk_app.keyv_store (key, value) VALUES ('thread:canary', $1)`, [
    JSON.stringify({ value: secrets[1] }),
  ]);
  await db.pool.query(`INSERT INTO datadesk_app.conversation_references (conversation_id, reference) VALUES ($1, '{}')`, [secrets[2]]);
  await db.pool.query(
    `INSERT INTO datadesk_app.digest_subscriptions (platform, channel, cron, timezone, kind, topic) VALUES ('slack', 'C1', '0 9 * * 1', 'UTC', 'question', $1)`,
    [secrets[3]],
  );
  const system = await db.pool.query<{ password: string; version: string; directory: string }>(
    `SELECT (SELECT password FROM datadesk_app.reader_login LIMIT 1) AS password, version() AS version, current_setting('data_directory') AS directory`,
  );
  secrets.push(system.rows[0].password, system.rows[0].version, system.rows[0].directory, 'SCRAM-SHA-256$');
  recordStatements(db.pool, sent.app);
  recordStatements(reader.pool, sent.reader);
  llm = await startFakeLlm();
  desk = deskWith({ reader: reader.pool, maxResultBytes: MAX_RESULT_BYTES, llm: model() });
});
afterAll(async () => {
  await llm?.close();
  await db?.drop();
  rmSync(pwnedPath, { force: true });
});
beforeEach(() => {
  llm.requests.length = 0;
  llm.script.length = 0;
});

describe('a hostile model, through the whole desk', () => {
  it('the corpus covers every attack class, and the data the checks compare is there', async () => {
    expect([...REFUSED.keys()]).toEqual(
      expect.arrayContaining([
        'sql_text_function',
        'set_config',
        'cte_shadowing',
        'functional_notation',
        'alias_function',
        'quoted_qualified_name',
        'server_info',
        'app_table',
        'large_object',
        'server_file',
        'cast',
        'construct',
        'statement',
        'operator',
        'fuzz_regression',
      ]),
    );
    expect(new Set(BOMBS.map((b) => b.limit))).toEqual(new Set(['timeout', 'bytes', 'temp']));
    const before = await state();
    expect(before.data).toEqual([expect.objectContaining({ crimes: 2_000 })]);
    expect(before.app).toMatchObject({ keyv_store: 1, conversation_references: 1, digest_subscriptions: 1, reader_login: 1 });
    expect(before.largeObjects).toBe(0);
  });

  it.each([...REFUSED.entries()].map(([name, list]) => [name, list.length, list] as const))(
    '%s (%i statements): refused every time, nothing runs, nothing shown, nothing changed',
    async (_name, _count, list: Hostile[]) => {
      const before = await state();
      const audit = await auditRows();
      const sentBefore = { app: sent.app.length, reader: sent.reader.length };
      for (const h of list) {
        llm.requests.length = 0;
        llm.script.length = 0;
        llm.script.push(sqlReply(h.sql), sqlReply(h.sql), sqlReply(h.sql));
        const verdict = await checkSql(h.sql.trim().replace(/;+\s*$/, ''));
        const answer = await ask();
        expect(answer.kind, h.sql).toBe('error');
        if (answer.kind !== 'error' || verdict.ok) throw new Error(`not refused: ${h.sql}`);
        // the guard's own sentence reaches the user, after the model was asked three times with it
        // (unless it quotes a name of the model's that is not inert: an operator named "~~" reads as markup)
        const problem = /OPERATOR\(evil\.~~\)/.test(h.sql) ? 'the query named things I may not show or run.' : verdict.message;
        expect(answer.message, h.sql).toBe(
          `I could not write a valid query for this after 3 attempts. The last problem: ${problem} Try rephrasing, or ask for something narrower.`,
        );
        expect(llm.requests, h.sql).toHaveLength(3);
        expect(llm.requests[2].messages[1].content, h.sql).toContain(`Error: ${verdict.message}`);
        expect(
          answer.trace.map((t) => t.node),
          h.sql,
        ).not.toContain('run');
        expectNoSecrets(answer);
      }
      // not even EXPLAIN: the statement reached neither login
      const newApp = sent.app.slice(sentBefore.app);
      const newReader = sent.reader.slice(sentBefore.reader);
      for (const h of list) {
        expect(ran(newApp, h.sql), `app pool ran ${h.sql}`).toBe(false);
        expect(ran(newReader, h.sql), `reader ran ${h.sql}`).toBe(false);
      }
      expect(await state()).toEqual(before);
      expect(await auditRows()).toBe(audit + list.length);
      expect(existsSync(pwnedPath)).toBe(false);
    },
  );

  it.each(BOMBS.map((b) => [b.limit!, b.sql] as const))(
    'a %s bomb the guard accepts is stopped by the limits, in time: %s',
    async (limit, sql) => {
      expect(await checkSql(sql)).toMatchObject({ ok: true });
      const before = await state();
      // the model insists: the same SQL at each attempt
      llm.script.push(sqlReply(sql), sqlReply(sql), sqlReply(sql));
      const started = performance.now();
      const answer = await ask();
      llm.script.length = 0;
      const elapsed = performance.now() - started;
      expect(answer.kind).toBe('error');
      if (answer.kind !== 'error') return;
      if (answer.message.includes('The query is too big to run: ')) {
        // refused from its EXPLAIN before it ran (db/explain-budget.ts): the wall in front of the timeout
        expect(answer.message).toMatch(
          /^I could not write a valid query for this after 3 attempts\. The last problem: The query is too big to run: /,
        );
      } else if (limit === 'timeout') {
        expect(answer.message).toBe(
          'The query took longer than 1.0 s and was stopped. Try a narrower question, e.g. one year or one district instead of all of them.',
        );
      } else if (limit === 'bytes') {
        expect(answer.message).toMatch(/^The query's result is too big \(more than 1 MB\) and was stopped\. Narrow the question/);
      } else {
        // stopped by temp_file_limit, said as too big like the byte cap; on a busy machine the statement timeout can come
        // first (the bomb writes its 8 MB more slowly), and that stops it in time just as well
        expect(answer.message).toMatch(
          /^The query's result is too big \(temporary file size exceeds temp_file_limit \(8192kB\)\) and was stopped\. Narrow the question|^The query took longer than 1\.0 s and was stopped/,
        );
      }
      // statement timeout + the watchdog's grace + room for a busy two-core machine
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000 + 2_000);
      // it really ran (unless its plan was refused first), on the reader login only
      expect(ran(sent.reader, resultStatement(sql, 1_000))).toBe(!answer.message.includes('The query is too big to run: '));
      expect(ran(sent.app, sql)).toBe(false);
      // and it is not running any more: the server stopped it, or the backend saw its client go
      await expect
        .poll(
          async () =>
            (
              await db.pool.query(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND state = 'active' AND query LIKE '%) AS answer%'`,
                [reader.role],
              )
            ).rows[0].n,
          { timeout: 5_000, interval: 100 },
        )
        .toBe(0);
      expect(await state()).toEqual(before);
      // the reader pool still answers afterwards
      expect((await reader.pool.query('SELECT count(*)::int AS n FROM crimes')).rows[0].n).toBe(2_000);
    },
  );

  // temp_file_limit raises SQLSTATE 53400: the user reads "too big, narrow it", and nothing is logged as a crash
  it('a query stopped by temp_file_limit is reported as too big, like the byte cap', async () => {
    llm.script.push(sqlReply(BOMBS.find((b) => b.limit === 'temp')!.sql));
    const answer = await ask();
    expect(answer).toMatchObject({ kind: 'error', message: expect.stringMatching(/^The query's result is too big/) });
  });

  // issue 33: a constant "answer" reads no table; shown, it would pass for the count it names
  it('a constant that reads no table (SELECT 42 AS thefts) is no answer: the model is told to read the data, and it never runs', async () => {
    const sql = 'SELECT 42 AS thefts';
    llm.script.push(sqlReply(sql), sqlReply(sql), sqlReply(sql));
    const answer = await ask();
    expect(answer).toMatchObject({
      kind: 'error',
      message: `I could not write a valid query for this after 3 attempts. The last problem: ${READS_NO_DATA} Try rephrasing, or ask for something narrower.`,
    });
    expect(READS_NO_DATA).toMatch(/^The query must read the crime data/);
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[1].messages[1].content).toContain(`Error: ${READS_NO_DATA}`);
    expect(ran(sent.reader, sql) || ran(sent.app, sql)).toBe(false);
    // told so, a model that reads the data the second time is answered from it
    llm.requests.length = 0;
    // count(DISTINCT id): a count no rollup holds, so the query runs as written (aggregate navigation leaves it on crimes)
    const counted = `SELECT count(DISTINCT id) AS thefts FROM crimes WHERE primary_type = 'THEFT'`;
    llm.script.push(sqlReply('WITH t AS (SELECT 42 AS n) SELECT n AS thefts FROM t'), sqlReply(counted));
    const second = await ask();
    expect(second).toMatchObject({ kind: 'result', sql: [counted] });
    expect(llm.requests[1].messages[1].content).toContain(`Error: ${READS_NO_DATA}`);
  });

  it('a query that does run, runs as the reader login: never on the app login', async () => {
    // count(DISTINCT id) stays on crimes (no rollup holds it): the statement that runs is the one written
    const sql = 'SELECT count(DISTINCT id) AS crimes FROM crimes';
    llm.script.push(sqlReply(sql), { content: 'There were 2,000 crimes.' });
    const answer = await ask();
    expect(answer).toMatchObject({ kind: 'result', sql: [sql], table: { columns: ['crimes'], rows: [[2_000]] } });
    expect(ran(sent.reader, resultStatement(sql, 1_000))).toBe(true);
    expect(ran(sent.reader, `EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`)).toBe(true);
    expect(ran(sent.app, sql)).toBe(false);
    // a count a rollup holds is moved onto it: the moved statement (the SQL shown) runs as the reader too, never the app
    llm.script.push(sqlReply('SELECT count(*) AS crimes FROM crimes'), { content: 'There were 2,000 crimes.' });
    const moved = await ask();
    if (moved.kind !== 'result') throw new Error(`not a result: ${JSON.stringify(moved)}`);
    expect(moved.sql[0]).toMatch(/^-- answered from crimes_by_\w+ .*\nSELECT coalesce\(sum\(n\), 0\) AS crimes FROM crimes_by_\w+$/);
    expect(moved.table).toMatchObject({ columns: ['crimes'], rows: [[2_000]] });
    const ranSql = moved.sql[0].split('\n').slice(1).join('\n');
    expect(ran(sent.reader, ranSql)).toBe(true);
    expect(ran(sent.app, ranSql)).toBe(false);
    // the pool the agent was given is the reader's, and that login is the reader itself, not a role switched into
    expect((desk.sql as unknown as { deps: SqlAgentDeps }).deps.reader).toBe(reader.pool);
    const who = await reader.pool.query(
      `SELECT current_user AS "current", session_user AS "session", r.rolsuper AS superuser, r.rolinherit AS inherit,
              (SELECT count(*)::int FROM pg_auth_members m WHERE m.member = r.oid) AS memberships
       FROM pg_roles r WHERE r.rolname = current_user`,
    );
    expect(who.rows[0]).toEqual({ current: reader.role, session: reader.role, superuser: false, inherit: false, memberships: 0 });
  });
});

describe('without a reader login', () => {
  it('a model-written query is refused and never runs on the app login; a verified question still answers', async () => {
    const withLlm = deskWith({ llm: model() });
    const sql = "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT'";
    llm.script.push(sqlReply(sql));
    const sentBefore = sent.app.length;
    const refused = await ask(withLlm);
    expect(refused).toMatchObject({
      kind: 'refusal',
      reason: expect.stringMatching(/^I cannot run a query written by the language model here: /),
    });
    expect(ran(sent.app.slice(sentBefore), sql)).toBe(false);

    // SQL our own code writes (a verified query) still runs, on the app login in a READ ONLY transaction
    const thefts = (
      await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)
    ).rows[0].n;
    const offline = deskWith({});
    const verified = await offline.answer({ platform: 'cli', threadId: 'verified', text: 'How many thefts were reported in 2019?' });
    expect(verified.kind).toBe('result');
    expect(verified.kind === 'result' && verified.table?.rows.flat()).toContain(thefts);
  });

  // a desk built by hand (no readerProblem in its deps) still tells the operator what to configure
  it('the refusal names READ_DATABASE_URL even when the desk was given no readerProblem', async () => {
    const withLlm = deskWith({ llm: model() });
    llm.script.push(sqlReply('SELECT count(*) FROM crimes'));
    const refused = await ask(withLlm);
    expect(refused).toMatchObject({ kind: 'refusal', reason: expect.stringContaining('READ_DATABASE_URL') });
  });
});
