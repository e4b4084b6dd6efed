import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../../src/core/answer.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 20_000);
});
afterAll(async () => db?.drop());

const result = (a: Answer) => {
  if (a.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(a)}`);
  return a;
};
const ask = (desk: ReturnType<typeof testDesk>['desk'], text: string, thread = 't') =>
  desk.answer({ platform: 'cli', threadId: thread, text });

describe('SQL agent without an LLM (the query plan)', () => {
  it('answers a count exactly, saying what it counted', async () => {
    const { desk } = testDesk(db);
    const a = result(await ask(desk, 'How many thefts were reported in 2019?'));
    const truth = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)).rows[0].n;
    // the SQL that ran: from the smallest rollup that keeps type and year (the count is checked against crimes on the next line)
    expect(a.sql).toEqual([
      "SELECT coalesce(sum(n), 0) AS incidents\nFROM crimes_by_year_type\nWHERE primary_type = 'THEFT'\n  AND year = 2019",
    ]);
    expect(a.table).toEqual({ columns: ['incidents'], rows: [[truth]], rowCount: 1, truncated: false });
    expect(a.headline).toBe(`Thefts in 2019, all of Chicago: ${truth.toLocaleString('en-US')}`);
    expect(a.understood).toEqual(['thefts', 'in 2019', 'all of Chicago']);
    expect(a.chart).toBeUndefined();
    // the six nodes in order; a node's measured parts ("generate/compiling", core/answer-cost.ts) are steps of their own
    expect(a.trace.filter((t) => !t.node.includes('/')).map((t) => t.node)).toEqual([
      'relevance',
      'schema',
      'generate',
      'validate',
      'run',
      'synthesize',
    ]);
    expect(a.trace.filter((t) => t.node.includes('/')).map((t) => t.node.split('/')[0])).toEqual(
      expect.arrayContaining(['generate', 'synthesize']),
    );
    expect(a.trace.find((t) => t.node === 'generate')?.note).toBe('offline: query plan');
  });

  it('"compare with 2018" after "by month" compares month by month: each month of 2019 against the same month of 2018', async () => {
    const { desk } = testDesk(db);
    await ask(desk, 'How many thefts were reported in 2019?', 'cmp');
    await ask(desk, 'by month', 'cmp');
    const a = result(await ask(desk, 'compare with 2018', 'cmp'));
    const { rows } = await db.pool.query(
      `SELECT extract(month FROM date)::int AS m, count(*) FILTER (WHERE year = 2019)::int AS a, count(*) FILTER (WHERE year = 2018)::int AS b
       FROM crimes WHERE primary_type = 'THEFT' AND year IN (2018, 2019) GROUP BY 1 ORDER BY 1`,
    );
    expect(a.table!.rows.map((r) => [r[1], r[2]])).toEqual(rows.map((r) => [r.a, r.b]));
    expect(a.table!.rows[0][0]).toBe('January');
    expect(a.understood).toEqual(['thefts', 'in 2019', 'all of Chicago', 'by month', 'compared with 2018']);
  });

  it('"compare with 2018" after an average per day compares the two averages, each over every day of its year', async () => {
    const { desk } = testDesk(db);
    await ask(desk, 'average thefts per day in 2019', 'cmp2');
    const a = result(await ask(desk, 'compare with 2018', 'cmp2'));
    const { rows } = await db.pool.query(
      `SELECT extract(year FROM d)::int AS y, round(avg((SELECT count(*) FROM crimes WHERE primary_type = 'THEFT' AND date::date = d::date)), 2)::float8 AS v
       FROM generate_series('2018-01-01'::date, '2019-12-31', interval '1 day') d GROUP BY 1 ORDER BY 1 DESC`,
    );
    expect(a.table!.rows[0].map(Number).filter((v, i) => i === 1 || i === 3)).toEqual(rows.map((r) => r.v));
    expect(a.understood).toEqual(['average thefts per day', 'in 2019', 'all of Chicago', 'compared with 2018']);
  });

  it('"compare with 2018" after thefts each year sets every year beside 2018, each number the database\'s', async () => {
    const { desk } = testDesk(db);
    await ask(desk, 'How many thefts were there each year?', 'cmp3');
    const a = result(await ask(desk, 'compare with 2018', 'cmp3'));
    const { rows } = await db.pool.query<{ year: number; n: number }>(
      `SELECT year, count(*)::int AS n FROM crimes WHERE primary_type = 'THEFT' GROUP BY year ORDER BY year`,
    );
    const in2018 = rows.find((r) => r.year === 2018)!.n;
    // one row a year, that year's thefts and 2018's beside it
    const shown = a.table!.rows.map((r) => [Number(r[0]), Number(r[1]), Number(r[2])]);
    for (const [year, n, beside] of shown) {
      expect(n, String(year)).toBe(rows.find((r) => r.year === year)?.n ?? 0);
      expect(beside, String(year)).toBe(in2018);
    }
    expect(a.table!.rowCount).toBe(rows.length);
    expect(shown.length).toBeGreaterThan(5);
    expect(a.narration).toContain('2018');
  });

  it('answers "which blocks had the most burglaries" with the whole ranking (no invented LIMIT) and a bar chart', async () => {
    const { desk } = testDesk(db);
    const a = result(await ask(desk, 'which blocks had the most burglaries'));
    const { rows } = await db.pool.query(
      `SELECT block, count(*) AS n FROM crimes WHERE primary_type = 'BURGLARY' GROUP BY block ORDER BY n DESC, block`,
    );
    expect(a.table!.rowCount).toBe(rows.length);
    expect(a.table!.rows).toEqual(rows.slice(0, 20).map((r) => [r.block, r.n]));
    expect(a.assumptions).toEqual(['incidents with no recorded block are left out']);
    expect(a.chart).toMatchObject({ kind: 'bar' });
    expect(a.narration).toContain(`Most: ${rows[0].block} with ${rows[0].n}.`);
  });

  it('names the weekday: "which day of the week had the most" is the top one, ties broken by weekday order', async () => {
    const { desk } = testDesk(db);
    const a = result(await ask(desk, 'Which day of the week had the most crimes?'));
    const { rows } = await db.pool.query(
      `SELECT to_char(date, 'FMDay') AS d, count(*) AS n FROM crimes GROUP BY 1, extract(isodow FROM date) ORDER BY n DESC, extract(isodow FROM date) LIMIT 1`,
    );
    expect(a.table!.rows).toEqual([[rows[0].d, rows[0].n]]);
    expect(a.narration).toContain(`Most: ${rows[0].d} with ${rows[0].n.toLocaleString('en-US')}`);
  });

  it('monthly homicides: all 12 months by name, the empty ones as 0', async () => {
    const { desk } = testDesk(db);
    const a = result(await ask(desk, 'Monthly homicides in 2021'));
    expect(a.table!.rowCount).toBe(12);
    expect(a.table!.rows.map((r) => r[0])).toEqual([
      'January',
      'February',
      'March',
      'April',
      'May',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
      'December',
    ]);
    const months = (
      await db.pool.query(
        `SELECT count(DISTINCT extract(month FROM date)) AS n FROM crimes WHERE primary_type = 'HOMICIDE' AND year = 2021`,
      )
    ).rows[0].n;
    expect(a.table!.rows.filter((r) => r[1] === 0)).toHaveLength(12 - months);
  });

  it('a single date is that day, not its year', async () => {
    const { desk } = testDesk(db);
    const a = result(await ask(desk, 'how many crimes on 2019-07-04'));
    const truth = (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE date::date = '2019-07-04'`)).rows[0].n;
    expect(a.table!.rows).toEqual([[truth]]);
    expect(a.headline).toBe(`Crimes on 2019-07-04, all of Chicago: ${truth}`);
  });

  it('narrates a whole time series even when the table shows only the first rows', async () => {
    const { desk } = testDesk(db);
    const a = result(await ask(desk, 'How many crimes were reported each year?'));
    expect(a.table!.rowCount).toBe(25);
    expect(a.table!.rows).toHaveLength(20);
    expect(a.table!.truncated).toBe(true);
    expect(a.narration).toMatch(/From 2001 to 2025: [\d,]+ to [\d,]+ \([+-][\d.]+%\)\./);
    expect(a.chart).toMatchObject({ kind: 'line' });
    expect(a.chart!.labels).toHaveLength(25);
  });

  it('asks what "night" means, answers after the click, and keeps the choice for the thread', async () => {
    const { desk } = testDesk(db);
    const q = await ask(desk, 'How many robberies happened at night in 2019?', 'night-thread');
    expect(q).toMatchObject({ kind: 'clarify', term: 'night', question: 'What counts as night?' });
    expect(q.kind === 'clarify' && q.options.map((o) => o.id)).toEqual(['22-06', '20-06', '18-06']);

    const a = result(await desk.choose({ platform: 'cli', threadId: 'night-thread' }, 'night', '22-06'));
    expect(a.sql[0]).toContain('(extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6)');
    expect(a.assumptions).toEqual(['night: 22:00-06:00']);
    const truth = (
      await db.pool.query(
        `SELECT count(*) AS n FROM crimes WHERE primary_type = 'ROBBERY' AND year = 2019 AND (extract(hour FROM date) >= 22 OR extract(hour FROM date) < 6)`,
      )
    ).rows[0].n;
    expect(a.table!.rows).toEqual([[truth]]);

    // the next question in the thread reuses the choice, and so does a follow-up; another thread asks again
    const b = result(await ask(desk, 'How many thefts happened at night in 2020?', 'night-thread'));
    expect(b.assumptions).toEqual(['night: 22:00-06:00']);
    expect(result(await ask(desk, 'and in 2021?', 'night-thread')).assumptions).toEqual(['night: 22:00-06:00']);
    expect(await ask(desk, 'How many thefts happened at night in 2020?', 'other-thread')).toMatchObject({ kind: 'clarify' });
  });

  it('night in Austin: asked, then answered (never asked and then refused)', async () => {
    const { desk } = testDesk(db);
    expect(await ask(desk, 'How many crimes happen at night in Austin in 2020?', 'austin')).toMatchObject({
      kind: 'clarify',
      term: 'night',
    });
    const a = result(await desk.choose({ platform: 'cli', threadId: 'austin' }, 'night', '20-06'));
    const truth = (
      await db.pool.query(
        `SELECT count(*) AS n FROM crimes WHERE community_area = 25 AND year = 2020 AND (extract(hour FROM date) >= 20 OR extract(hour FROM date) < 6)`,
      )
    ).rows[0].n;
    expect(a.table!.rows).toEqual([[truth]]);
    expect(a.headline).toBe(`Crimes in 2020 at night (20:00-06:00), in Austin: ${truth}`);
  });

  it('uses the workspace default without asking, and says so', async () => {
    const { desk } = testDesk(db, { glossaryDefaults: { night: '18-06' } });
    const a = result(await ask(desk, 'How many robberies happened at night in 2019?'));
    expect(a.assumptions).toEqual(['night: 18:00-06:00 (workspace default)']);
  });

  it('asks "per block" and "calendar day" too, and answers each choice', async () => {
    const { desk } = testDesk(db);
    expect(await ask(desk, 'What is the average number of burglaries per block in 2019?', 'pb')).toMatchObject({
      kind: 'clarify',
      term: 'per_block_average',
    });
    const a = result(await desk.choose({ platform: 'cli', threadId: 'pb' }, 'per_block_average', 'all_blocks'));
    const allBlocks = (
      await db.pool.query(
        `SELECT round((SELECT count(*) FROM crimes WHERE primary_type = 'BURGLARY' AND year = 2019)::numeric / (SELECT count(DISTINCT block) FROM crimes), 2) AS v`,
      )
    ).rows[0].v;
    expect(a.table!.rows).toEqual([[Number(allBlocks)]]);
    expect(await ask(desk, 'Which calendar day had the most crimes in 2019?', 'cd')).toMatchObject({
      kind: 'clarify',
      term: 'calendar_day',
    });
    const d = result(await desk.choose({ platform: 'cli', threadId: 'cd' }, 'calendar_day', 'day_of_year'));
    expect(d.sql[0]).toContain("to_char(date, 'MM-DD')");
  });

  it('follows up in the thread by editing the last plan, never dropping a filter', async () => {
    const { desk } = testDesk(db);
    const count = async (where: string) => (await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE ${where}`)).rows[0].n;
    result(await ask(desk, 'How many thefts were reported in district 11 in 2019?', 'f'));
    expect(result(await ask(desk, 'and in 2020?', 'f')).table!.rows).toEqual([
      [await count("primary_type = 'THEFT' AND district = 11 AND year = 2020")],
    ]);
    expect(result(await ask(desk, 'only district 12', 'f')).table!.rows).toEqual([
      [await count("primary_type = 'THEFT' AND district = 12 AND year = 2020")],
    ]);
    // a question complete on its own starts afresh: it does not inherit 2020 or district 12
    expect(result(await ask(desk, 'How many burglaries were reported in 2018?', 'f')).table!.rows).toEqual([
      [await count("primary_type = 'BURGLARY' AND year = 2018")],
    ]);
    result(await ask(desk, 'How many homicides were there each year?', 'g'));
    const byYear = result(await ask(desk, 'and in district 11?', 'g'));
    expect(byYear.understood).toEqual(['homicides', 'in district 11', 'by year']);
    expect(byYear.table!.rowCount).toBe(25);
  });

  it('offline, a question it cannot read is not asked about first (asking and then refusing is the worst outcome)', async () => {
    const { desk } = testDesk(db);
    const a = await ask(desk, 'What is the average number of days between consecutive crimes on the same block?', 'consecutive');
    expect(a).toMatchObject({ kind: 'refusal', route: 'sql' });
  });

  it('says what it understood and what it could not use when a question needs an LLM', async () => {
    const { desk } = testDesk(db);
    const a = await ask(desk, 'Which crimes tend to happen near each other within an hour?');
    expect(a).toMatchObject({ kind: 'refusal', route: 'sql' });
    expect(a.kind === 'refusal' && a.reason).toMatch(/I could not use: .*"near each other.*No LLM is configured/);
  });

  it('says a word it passed over among the answer\'s assumptions ("Honestly, how many thefts in 2020?")', async () => {
    const { desk } = testDesk(db);
    const a = await ask(desk, 'Honestly, how many thefts in 2020?', 'passed-over');
    expect(a).toMatchObject({ kind: 'result', route: 'sql' });
    expect(a.kind === 'result' && a.assumptions.join(' ')).toMatch(/I did not use: "Honestly"/);
  });

  it('a fragment that points back in a thread with no answer yet says so as its reason ("same for 2019")', async () => {
    const { desk } = testDesk(db);
    const a = await ask(desk, 'same for 2019', 'nothing-before');
    expect(a).toMatchObject({ kind: 'refusal' });
    expect(a.kind === 'refusal' && a.reason).toMatch(/There is no earlier answer in this thread to build on/);
    expect(a.kind === 'refusal' && a.reason).not.toMatch(/needs one/);
  });

  it('refuses requests to change data, greets, and turns away other topics', async () => {
    const { desk } = testDesk(db);
    expect(await ask(desk, 'delete all crimes from 2001')).toMatchObject({
      kind: 'refusal',
      reason: 'I only read data; I never change, add or delete it.',
    });
    expect(await ask(desk, 'hello')).toMatchObject({ kind: 'result', route: 'help', headline: 'What I can do' });
    expect(await ask(desk, 'what is the weather in Paris?')).toMatchObject({ kind: 'refusal', route: 'reject' });
    expect((await db.pool.query('SELECT count(*) AS n FROM crimes')).rows[0].n).toBe(20_000);
  });

  it('a click with no question waiting gets a clear reply', async () => {
    const { desk } = testDesk(db);
    const a = await desk.choose({ platform: 'cli', threadId: 'fresh' }, 'night', '20-06');
    expect(a).toMatchObject({
      kind: 'error',
      message: 'Noted: night means 20:00-06:00 in this thread. There is no question waiting for it; ask away.',
    });
    // a wrong option lists the right ones (what `ask --choose` shows)
    expect(await desk.choose({ platform: 'cli', threadId: 'fresh' }, 'night', 'noon')).toMatchObject({
      kind: 'error',
      message: '"noon" is not an option of night. The options: 22-06 (22:00-06:00), 20-06 (20:00-06:00), 18-06 (18:00-06:00).',
    });
    expect(await desk.choose({ platform: 'cli', threadId: 'fresh' }, 'nite', '20-06')).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^"nite" is not a term that takes a choice\. The terms: .*night/),
    });
  });

  it('records every question in the audit log, never the rows', async () => {
    const { desk } = testDesk(db);
    await desk.answer({
      platform: 'slack',
      threadId: 'audit',
      channel: 'C1',
      userId: 'U1',
      text: 'How many thefts were reported in 2019?',
    });
    const { rows } = await db.pool.query(
      `SELECT platform, channel, user_id, route, status, sql, row_count, node_ms, tokens FROM audit_log WHERE thread = 'audit'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      platform: 'slack',
      channel: 'C1',
      user_id: 'U1',
      route: 'sql',
      status: 'answered',
      row_count: 1,
      tokens: 0,
    });
    const nodes = Object.keys(rows[0].node_ms).filter((n) => !n.includes('/'));
    expect(nodes.sort()).toEqual(['generate', 'relevance', 'run', 'schema', 'synthesize', 'validate']);
  });
});

/** Redis runs on developer and CI machines; a fresh machine may not have it. */
const redisUp = await new Promise<boolean>((resolve) => {
  const socket = connect(6379, '127.0.0.1');
  socket.once('connect', () => (socket.end(), resolve(true)));
  socket.once('error', () => resolve(false));
  socket.setTimeout(1_000, () => (socket.destroy(), resolve(false)));
});

describe.skipIf(!redisUp)('thread memory in Redis (127.0.0.1:6379)', () => {
  it('keeps a clarification across desks sharing the store', async () => {
    const url = 'redis://127.0.0.1:6379';
    const first = testDesk(db, { memoryUrl: url });
    const thread = `redis-${Date.now()}`;
    await ask(first.desk, 'How many robberies happened at night in 2019?', thread);
    await first.desk.choose({ platform: 'cli', threadId: thread }, 'night', '20-06');
    await first.memory.close();
    const second = testDesk(db, { memoryUrl: url });
    const a = result(await ask(second.desk, 'How many thefts happened at night in 2021?', thread));
    expect(a.assumptions).toEqual(['night: 20:00-06:00']);
    await second.memory.close();
  });
});
