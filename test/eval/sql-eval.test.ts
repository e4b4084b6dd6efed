import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateSql, loadBenchmark, relaxedMatch, strictMatch } from '../../src/eval/sql-eval.js';
import { checkSql } from '../../src/db/sql-guard.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';

const r = (columns: string[], rows: (string | number)[][]) => ({ columns, rows, rowCount: rows.length, truncated: false });

describe('execution accuracy', () => {
  it('strict: same rows, in order when ordered; relaxed: names and column order ignored', () => {
    const gold = r(['year', 'incidents'], [[2019, 10], [2020, 12]]);
    expect(strictMatch(gold, r(['y', 'n'], [[2019, 10], [2020, 12]]), true)).toBe(true);
    expect(strictMatch(gold, r(['y', 'n'], [[2020, 12], [2019, 10]]), true)).toBe(false);
    expect(strictMatch(gold, r(['y', 'n'], [[2020, 12], [2019, 10]]), false)).toBe(true);
    expect(strictMatch(gold, r(['n', 'y'], [[10, 2019], [12, 2020]]), true)).toBe(false);
    expect(relaxedMatch(gold, r(['n', 'y'], [[10, 2019], [12, 2020]]), true)).toBe(true);
    expect(relaxedMatch(gold, r(['n', 'y', 'extra'], [[10, 2019, 'a'], [12, 2020, 'b']]), true)).toBe(true);
    expect(relaxedMatch(gold, r(['n', 'y'], [[10.0000000001, 2019], [12, 2020]]), true)).toBe(true);
    expect(relaxedMatch(gold, r(['n', 'y'], [[11, 2019], [12, 2020]]), true)).toBe(false);
    // columns that match one by one but not row by row are not a match
    expect(relaxedMatch(r(['a', 'b'], [[1, 2], [3, 4]]), r(['a', 'b'], [[1, 4], [3, 2]]), false)).toBe(false);
  });
});

describe('the crime benchmark', () => {
  const items = loadBenchmark();

  it('has 100 questions, 30 easy / 40 medium / 30 hard, every gold query passing the guard', async () => {
    expect(items.map((i) => i.tier).filter((t) => t === 'easy')).toHaveLength(30);
    expect(items.map((i) => i.tier).filter((t) => t === 'medium')).toHaveLength(40);
    expect(items.map((i) => i.tier).filter((t) => t === 'hard')).toHaveLength(30);
    for (const i of items) expect(await checkSql(i.sql), i.id).toMatchObject({ ok: true });
  });

  describe('offline, on real PostgreSQL', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
      await loadCrimes(db.pool, 15_000);
    });
    afterAll(async () => db?.drop());

    it('every gold query runs, and every offline answer is exact: refused rather than wrong', async () => {
      for (const i of items) await db.pool.query(i.sql);
      const { desk, memory } = testDesk(db);
      const report = await evaluateSql({ agent: desk.sql, memory, pool: db.pool, statementTimeoutMs: 20_000 }, items);
      const answered = report.outcomes.filter((o) => o.valid);
      expect(answered.length).toBeGreaterThanOrEqual(50);
      expect(answered.filter((o) => !o.relaxed).map((o) => `${o.item.id}: ${o.failure}`)).toEqual([]);
      expect(report.outcomes.filter((o) => !o.valid).every((o) => o.failure === 'unsupported (refused)')).toBe(true);
      expect(report.lines[1]).toBe('tier | n | valid SQL | EX strict | EX relaxed | synthesis (1-5) | median ms');
    });
  });
});
