import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BENCHMARK_FILES,
  countOutcomes,
  evaluateSql,
  loadBenchmark,
  loadBenchmarks,
  relaxedMatch,
  strictMatch,
  type BenchmarkItem,
  type ItemOutcome,
  type OutcomeCounts,
} from '../../src/eval/sql-eval.js';
import type { SqlAgent, SqlOutcome } from '../../src/agents/sql/agent.js';
import { runSql } from '../../src/agents/sql/execute.js';
import { makeAnswer } from '../../src/core/answer.js';
import { fixturePath } from '../../src/core/paths.js';
import { checkSql } from '../../src/db/sql-guard.js';
import { isAmbiguous, option, termsIn } from '../../src/knowledge/glossary.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';

const r = (columns: string[], rows: (string | number)[][]) => ({ columns, rows, rowCount: rows.length, truncated: false });

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

describe('execution accuracy', () => {
  it('strict: same rows, in order when ordered; relaxed: names and column order ignored', () => {
    const gold = r(
      ['year', 'incidents'],
      [
        [2019, 10],
        [2020, 12],
      ],
    );
    expect(
      strictMatch(
        gold,
        r(
          ['y', 'n'],
          [
            [2019, 10],
            [2020, 12],
          ],
        ),
        true,
      ),
    ).toBe(true);
    expect(
      strictMatch(
        gold,
        r(
          ['y', 'n'],
          [
            [2020, 12],
            [2019, 10],
          ],
        ),
        true,
      ),
    ).toBe(false);
    expect(
      strictMatch(
        gold,
        r(
          ['y', 'n'],
          [
            [2020, 12],
            [2019, 10],
          ],
        ),
        false,
      ),
    ).toBe(true);
    expect(
      strictMatch(
        gold,
        r(
          ['n', 'y'],
          [
            [10, 2019],
            [12, 2020],
          ],
        ),
        true,
      ),
    ).toBe(false);
    expect(
      relaxedMatch(
        gold,
        r(
          ['n', 'y'],
          [
            [10, 2019],
            [12, 2020],
          ],
        ),
        true,
      ),
    ).toBe(true);
    expect(
      relaxedMatch(
        gold,
        r(
          ['n', 'y', 'extra'],
          [
            [10, 2019, 'a'],
            [12, 2020, 'b'],
          ],
        ),
        true,
      ),
    ).toBe(true);
    expect(
      relaxedMatch(
        gold,
        r(
          ['n', 'y'],
          [
            [10.0000000001, 2019],
            [12, 2020],
          ],
        ),
        true,
      ),
    ).toBe(true);
    expect(
      relaxedMatch(
        gold,
        r(
          ['n', 'y'],
          [
            [11, 2019],
            [12, 2020],
          ],
        ),
        true,
      ),
    ).toBe(false);
    // columns that match one by one but not row by row are not a match
    expect(
      relaxedMatch(
        r(
          ['a', 'b'],
          [
            [1, 2],
            [3, 4],
          ],
        ),
        r(
          ['a', 'b'],
          [
            [1, 4],
            [3, 2],
          ],
        ),
        false,
      ),
    ).toBe(false);
  });
});

const tiers = (items: BenchmarkItem[]) => ({
  easy: items.filter((i) => i.tier === 'easy').length,
  medium: items.filter((i) => i.tier === 'medium').length,
  hard: items.filter((i) => i.tier === 'hard').length,
});

describe('the crime benchmark', () => {
  const items = loadBenchmark();

  it('has 100 questions, 30 easy / 40 medium / 30 hard, every gold query passing the guard', async () => {
    expect(items.map((i) => i.tier).filter((t) => t === 'easy')).toHaveLength(30);
    expect(items.map((i) => i.tier).filter((t) => t === 'medium')).toHaveLength(40);
    expect(items.map((i) => i.tier).filter((t) => t === 'hard')).toHaveLength(30);
    for (const i of items) expect(await checkSql(i.sql), i.id).toMatchObject({ ok: true });
  });
});

describe('the chat benchmark (crime-chat-40)', () => {
  const items = loadBenchmark(fixturePath('benchmarks', 'crime-chat-40.jsonl'));

  it('has 40 questions c01..c40, 12 easy / 16 medium / 12 hard, with the fields of crime-100, every gold query passing the guard', async () => {
    expect(items.map((i) => i.id)).toEqual(Array.from({ length: 40 }, (_, k) => `c${String(k + 1).padStart(2, '0')}`));
    expect(tiers(items)).toEqual({ easy: 12, medium: 16, hard: 12 });
    for (const i of items) {
      expect(
        Object.keys(i).filter((k) => !['id', 'tier', 'question', 'sql', 'clarifications', 'file'].includes(k)),
        i.id,
      ).toEqual([]);
      expect(await checkSql(i.sql), i.id).toMatchObject({ ok: true });
    }
  });

  it('is written the way people chat: lower case, typos, relative dates', () => {
    for (const i of items) expect(i.question, i.id).toBe(i.question.toLowerCase());
    const text = items.map((i) => i.question).join('\n');
    for (const phrase of [
      'thefs',
      'burglarys',
      'homocides',
      'last year',
      'the last 90 days',
      'this year so far',
      'since 2020',
      'between march and june 2021',
      'in austin at night',
      'per block',
      'on 2019-07-04',
      'on july 4 2019',
      '7/4/2019',
      'after 10pm',
      'englewood',
      "o'hare",
      'logan square',
      'community area 32',
      'led to an arrest',
      'by month in 2021',
      'day of the week',
      'by hour',
      'compare 2019 with 2018',
      'median',
      'per day',
      'weekends',
    ]) {
      expect(text, phrase).toContain(phrase);
    }
  });

  it('names, for every ambiguous glossary term a question uses, the option its gold assumes, and nothing else', () => {
    for (const i of items) {
      const ambiguous = termsIn(i.question)
        .filter(isAmbiguous)
        .map((t) => t.id)
        .sort();
      expect(Object.keys(i.clarifications ?? {}).sort(), i.id).toEqual(ambiguous);
      for (const [term, choice] of Object.entries(i.clarifications ?? {}))
        expect(option(term, choice), `${i.id}: ${term}=${choice}`).toBeDefined();
    }
  });

  it('says relative dates relative to the latest date in the data, never as a literal year', () => {
    const relative = items.filter((i) => /\b(last year|this year|last \d+ days)\b/.test(i.question));
    expect(relative.length).toBeGreaterThanOrEqual(10);
    for (const i of relative) {
      expect(i.sql, i.id).toMatch(/\(SELECT [^\n]*max\(date\)[^\n]* FROM crimes\)/);
      expect(i.sql, i.id).not.toMatch(/\b(19|20)\d\d\b/);
    }
  });
});

describe('both files', () => {
  it('load together: 140 questions, ids unique across the files, each tagged with its file', () => {
    const items = loadBenchmarks();
    expect(BENCHMARK_FILES).toEqual(['crime-100.jsonl', 'crime-chat-40.jsonl']);
    expect(items).toHaveLength(140);
    expect(new Set(items.map((i) => i.id)).size).toBe(140);
    expect(items.filter((i) => i.file === 'crime-100')).toHaveLength(100);
    expect(items.filter((i) => i.file === 'crime-chat-40')).toHaveLength(40);
    expect(() => loadBenchmarks([fixturePath('benchmarks', 'crime-100.jsonl'), fixturePath('benchmarks', 'crime-100.jsonl')])).toThrow(
      /unique/,
    );
  });
});

/** answered = right + wrong, questions = answered + refused + asked + errors, tiers add up to their file, files to the total. */
function expectConsistent(counts: OutcomeCounts[], outcomes: ItemOutcome[]): void {
  for (const c of counts) {
    expect(c.answered, `${c.file} ${c.tier}`).toBe(c.right + c.wrong);
    expect(c.questions, `${c.file} ${c.tier}`).toBe(c.answered + c.refused + c.asked + c.errors);
  }
  const keys = ['questions', 'answered', 'right', 'wrong', 'refused', 'asked', 'errors'] as const;
  const sum = (rows: OutcomeCounts[]) => Object.fromEntries(keys.map((k) => [k, rows.reduce((s, c) => s + c[k], 0)]));
  const pick = (c: OutcomeCounts) => Object.fromEntries(keys.map((k) => [k, c[k]]));
  const files = [...new Set(counts.map((c) => c.file))].filter((f) => f !== 'all');
  for (const f of files) {
    const rows = counts.filter((c) => c.file === f);
    expect(rows.map((c) => c.tier)).toEqual(['easy', 'medium', 'hard', 'all']);
    expect(sum(rows.slice(0, 3))).toEqual(pick(rows[3]));
  }
  const total = counts.at(-1)!;
  expect([total.file, total.tier]).toEqual(['all', 'all']);
  expect(sum(counts.filter((c) => c.file !== 'all' && c.tier === 'all'))).toEqual(pick(total));
  expect(total.questions).toBe(outcomes.length);
  expect(total.right).toBe(outcomes.filter((o) => o.relaxed).length);
}

describe('offline, on real PostgreSQL', () => {
  let db: TestDatabase;
  const items = loadBenchmarks();
  beforeAll(async () => {
    db = await createTestDatabase();
    await loadCrimes(db.pool, 15_000);
  });
  afterAll(async () => db?.drop());

  it('every gold query of both files runs through the reader login; month, weekday and hour series are complete and named', async () => {
    for (const i of items) {
      const gold = await runSql(db.reader!.pool, i.sql, 20_000, 10_000);
      if (i.file !== 'crime-chat-40') continue;
      const column = (name: string) => gold.rows.map((row) => row[gold.columns.indexOf(name)]);
      if (gold.columns.includes('month'))
        for (const m of column('month')) expect(String(m), i.id).toMatch(new RegExp(`^(${MONTHS.join('|')})( \\d{4})?$`));
      if (gold.columns.includes('weekday')) for (const d of column('weekday')) expect(WEEKDAYS, i.id).toContain(d);
      if (/\bby month in \d{4}\b/.test(i.question)) expect(column('month'), i.id).toEqual(MONTHS);
      if (/\bby day of (the )?week\b/.test(i.question)) expect(column('weekday'), i.id).toEqual(WEEKDAYS);
      if (/\bby hour\b/.test(i.question)) expect(column('hour'), i.id).toEqual(Array.from({ length: 24 }, (_, h) => h));
    }
    // months with no incidents are rows with 0 (homicides are rare in 15,000 rows over 25 years)
    const homicides = await runSql(db.pool, items.find((i) => i.question === 'homocides by month in 2021')!.sql, 20_000);
    expect(homicides.rows.filter((row) => row[1] === 0).length).toBeGreaterThan(0);
    // "since 2024" by month runs to the month of the latest date
    const {
      rows: [latest],
    } = await db.pool.query<{ months: number }>(
      'SELECT (extract(year FROM max(date))::int - 2024) * 12 + extract(month FROM max(date))::int AS months FROM crimes',
    );
    expect((await runSql(db.pool, items.find((i) => i.question === 'robberies per month since 2024')!.sql, 20_000)).rowCount).toBe(
      latest.months,
    );
  });

  it('both files offline: counts per file and tier add up, clarifications are applied (nothing asked), crime-100 answers are exact: refused rather than wrong', async () => {
    const { desk, memory } = testDesk(db);
    const report = await evaluateSql({ agent: desk.sql, memory, pool: db.pool, statementTimeoutMs: 20_000 }, items);
    expect(report.outcomes).toHaveLength(140);
    expectConsistent(report.counts, report.outcomes);
    expect(report.counts.map((c) => `${c.file} ${c.tier}`)).toEqual([
      'crime-100 easy',
      'crime-100 medium',
      'crime-100 hard',
      'crime-100 all',
      'crime-chat-40 easy',
      'crime-chat-40 medium',
      'crime-chat-40 hard',
      'crime-chat-40 all',
      'all all',
    ]);
    expect(report.counts.find((c) => c.file === 'crime-100' && c.tier === 'all')!.questions).toBe(100);
    expect(report.counts.find((c) => c.file === 'crime-chat-40' && c.tier === 'all')!.questions).toBe(40);
    expect(report.counts.at(-1)).toMatchObject({ asked: 0, errors: 0 });

    // Offline, the query plan answers at least 80% of the easy and medium questions, and never wrongly
    const KNOWN_DISAGREEMENTS: string[] = [];
    const easyMedium = report.outcomes.filter((o) => o.item.tier !== 'hard');
    expect(easyMedium.filter((o) => o.valid).length / easyMedium.length).toBeGreaterThanOrEqual(0.8);
    expect(
      report.outcomes
        .filter((o) => o.valid && !o.relaxed)
        .map((o) => o.item.id)
        .sort(),
    ).toEqual(KNOWN_DISAGREEMENTS);
    expect(report.outcomes.filter((o) => !o.valid).every((o) => o.failure === 'unsupported (refused)')).toBe(true);

    expect(report.lines[0]).toBe(
      'SQL benchmark: 140 questions (crime-100 100, crime-chat-40 40), no LLM (query plan and verified queries only)',
    );
    expect(report.lines[1]).toBe('tier | n | valid SQL | EX strict | EX relaxed | synthesis (1-5) | median ms');
    const table = report.lines.indexOf('file | tier | questions | answered | right | wrong | refused | asked | errors');
    expect(table).toBe(6);
    const total = report.counts.at(-1)!;
    expect(report.lines[table + 9]).toBe(
      `all | all | 140 | ${total.answered} | ${total.right} | ${total.wrong} | ${total.refused} | 0 | 0`,
    );
  });

  it('classifies every kind of outcome, applies clarifications before asking, and never counts a broken gold query as wrong', async () => {
    const { memory } = testDesk(db);
    const gold = 'SELECT year, count(*) AS incidents FROM crimes WHERE year IN (2019, 2020) GROUP BY year ORDER BY year';
    const item = (id: string, tier: BenchmarkItem['tier'], sql = gold, clarifications?: Record<string, string>): BenchmarkItem => ({
      id,
      tier,
      question: `question ${id}`,
      sql,
      file: id.startsWith('a') ? 'alpha' : 'beta',
      ...(clarifications ? { clarifications } : {}),
    });
    const items = [
      item('a1', 'easy', gold, { night: '20-06' }), // right: the same query
      item('a2', 'easy'), // right (relaxed): columns swapped
      item('a3', 'medium'), // wrong: another year
      item('a4', 'hard'), // asked
      item('b1', 'easy'), // refused
      item('b2', 'medium'), // error answer
      item('b3', 'medium'), // the agent throws
      item('b4', 'hard', 'SELECT no_such_column FROM crimes'), // broken gold: an error, not wrong
    ];
    const seen: Record<string, Record<string, string>> = {};
    const base = { route: 'sql' as const, trace: [] };
    const result = (sql: string): SqlOutcome => ({
      tokens: 0,
      sql,
      answer: makeAnswer({ kind: 'result', ...base, headline: '', narration: '', sql: [sql], assumptions: [], notes: [] }),
    });
    const agent: Pick<SqlAgent, 'ask'> = {
      async ask({ question, threadId }) {
        const id = question.split(' ')[1];
        seen[id] = { ...(await memory.get(threadId)).clarifications };
        switch (id) {
          case 'a1':
            return result(gold);
          case 'a2':
            return result('SELECT count(*) AS n, year FROM crimes WHERE year IN (2019, 2020) GROUP BY year ORDER BY year');
          case 'a3':
            return result('SELECT year, count(*) AS incidents FROM crimes WHERE year IN (2018, 2020) GROUP BY year ORDER BY year');
          case 'a4':
            return {
              tokens: 0,
              answer: makeAnswer({
                kind: 'clarify',
                ...base,
                question: 'night?',
                term: 'night',
                options: [
                  { id: '22-06', label: 'a' },
                  { id: '20-06', label: 'b' },
                ],
              }),
            };
          case 'b1':
            return { tokens: 0, answer: makeAnswer({ kind: 'refusal', ...base, reason: 'no', alternatives: [] }) };
          case 'b2':
            return {
              tokens: 0,
              sql: 'SELEC 1',
              answer: makeAnswer({
                kind: 'error',
                ...base,
                retryable: false,
                message: 'I could not write a valid query for this after 1 attempt. The last problem: x',
              }),
            };
          case 'b3':
            throw new Error('the agent fell over');
          default:
            return result(gold);
        }
      },
    };
    const report = await evaluateSql({ agent, memory, pool: db.pool, statementTimeoutMs: 20_000 }, items);
    expect(seen.a1).toEqual({ night: '20-06' });
    expect(seen.a2).toEqual({});
    expect(Object.fromEntries(report.outcomes.map((o) => [o.item.id, o.status]))).toEqual({
      a1: 'right',
      a2: 'right',
      a3: 'wrong',
      a4: 'asked',
      b1: 'refused',
      b2: 'error',
      b3: 'error',
      b4: 'error',
    });
    expect(report.outcomes.map((o) => o.failure)).toEqual([
      undefined,
      undefined,
      'wrong values',
      'clarification asked (night)',
      'unsupported (refused)',
      'invalid SQL',
      'error: the agent fell over',
      expect.stringMatching(/^gold query failed: column "no_such_column" does not exist/),
    ]);
    expect(report.outcomes.map((o) => [o.strict, o.relaxed])).toEqual([
      [true, true],
      [false, true],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
    ]);
    expectConsistent(report.counts, report.outcomes);
    const row = (file: string, tier: string) => report.counts.find((c) => c.file === file && c.tier === tier);
    expect(row('alpha', 'easy')).toMatchObject({ questions: 2, answered: 2, right: 2, wrong: 0 });
    expect(row('alpha', 'all')).toMatchObject({ questions: 4, answered: 3, right: 2, wrong: 1, refused: 0, asked: 1, errors: 0 });
    expect(row('beta', 'all')).toMatchObject({ questions: 4, answered: 0, right: 0, wrong: 0, refused: 1, asked: 0, errors: 3 });
    expect(row('all', 'all')).toMatchObject({ questions: 8, answered: 3, right: 2, wrong: 1, refused: 1, asked: 1, errors: 3 });
    expect(report.lines).toContain('alpha | all | 4 | 3 | 2 | 1 | 0 | 1 | 0');
    expect(report.lines).toContain('  1 x wrong values: a3');
    expect(countOutcomes([])).toEqual([
      { file: 'all', tier: 'all', questions: 0, answered: 0, right: 0, wrong: 0, refused: 0, asked: 0, errors: 0 },
    ]);
  });
});
