// The SQL the playground shows: a query left on one line is laid out; one our
// plan compiler wrote (a clause a line) is shown as written, without paying
// for sql-formatter on every answer.
import { describe, expect, it } from 'vitest';
import { formatSql } from '../../../src/channels/web/format-sql.js';
import { compilePlan } from '../../../src/plan/compile.js';
import { parsePlan } from '../../../src/plan/query-plan.js';
import { readQuestion } from '../../../src/plan/reader.js';

const ctx = { areas: new Map([['austin', 25]]), earliestDate: '2001-01-01', latestDate: '2024-12-31' };

describe('formatSql', () => {
  it('lays out a query written on one line, keywords and names as written', () => {
    const shown = formatSql("select year, count(*) as n from crimes where primary_type = 'THEFT' group by year order by year");
    expect(shown.split('\n').length).toBeGreaterThan(4);
    expect(shown).toMatch(/^from\s*\n\s+crimes$/m);
    expect(shown).toContain('group by');
  });

  it("shows our compiler's SQL as it wrote it, a clause a line", () => {
    for (const question of [
      'Which 10 community areas had the most burglaries in 2020?',
      'How many crimes happened in Austin in 2021?',
      'How many crimes were reported each year?',
      'How many batteries were reported each month in 2019?',
    ]) {
      const reading = readQuestion(question, ctx);
      if (!reading.ok) throw new Error(`not read: ${question}`);
      const { sql } = compilePlan(parsePlan(reading.plan));
      expect(sql).toMatch(/\nFROM /);
      expect(formatSql(sql)).toBe(sql);
    }
  });

  it('shows a query the formatter cannot read as it is', () => {
    expect(formatSql('SELECT ((( FROM')).toBe('SELECT ((( FROM');
  });
});
