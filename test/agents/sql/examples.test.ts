// The questions Data Desk ships with are plan tests: each question and every
// paraphrase reads to a plan offline, a paraphrase of the same kind reads to a
// plan of the same shape, and the example SQL shown to the model is the
// compiler's (no LIMIT unless the question asks for a number of rows).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleSql, fixturePlan, verifiedQueries } from '../../../src/verified/verified-queries.js';
import { fixturePath, migrationsDir } from '../../../src/core/paths.js';
import { readQuestion } from '../../../src/plan/reader.js';
import { parsePlan, type QueryPlan } from '../../../src/plan/query-plan.js';

const AREAS = [...readFileSync(`${migrationsDir}/002_crimes.sql`, 'utf8').matchAll(/\((\d+), '((?:[^']|'')+)'\)/g)].map(
  (m) => [m[2].replace(/''/g, "'").toLowerCase(), Number(m[1])] as const,
);
const ctx = { areas: new Map(AREAS), earliestDate: '2001-01-01', latestDate: '2024-12-31' };

/** What a plan is, without its values: the measure kind, which filters, the grouping, the ranking. */
const shape = (p: QueryPlan) => ({
  measure: p.measure.kind,
  filters: Object.keys(p.filters)
    .filter((k) => k !== 'time')
    .sort(),
  time: Boolean(p.filters.time),
  groupBy: p.groupBy,
  top: Boolean(p.top),
  compare: Boolean(p.compareWith),
});

describe('the shipped questions', () => {
  it('every question and paraphrase reads to a plan, paraphrases to the same shape as their question', () => {
    expect(verifiedQueries().length).toBe(34);
    expect(readFileSync(fixturePath('knowledge', 'verified-queries.jsonl'), 'utf8')).not.toMatch(/"template"|"cue"/);
    for (const v of verifiedQueries()) {
      const own = readQuestion(v.question, ctx);
      expect(own.ok, v.question).toBe(true);
      const base = shape(parsePlan(own.ok && own.plan));
      for (const p of v.paraphrases) {
        const r = readQuestion(p, ctx);
        expect(r.ok, `${v.id}: ${p}`).toBe(true);
        // a paraphrase may name other values (another type, another year) but asks the same kind of question
        expect(shape(parsePlan(r.ok && r.plan)).measure, `${v.id}: ${p}`).toBe(base.measure);
      }
    }
  });

  it('the example SQL is the compiled plan: no LIMIT unless the question asks for a number of rows or a single winner', () => {
    let unlimited = 0;
    for (const v of verifiedQueries()) {
      const sql = exampleSql(v, ctx);
      expect(sql, v.question).toBeDefined();
      if (!fixturePlan(v, ctx)!.plan.top) {
        unlimited++;
        expect(sql, v.question).not.toMatch(/\bLIMIT\b/i);
      }
    }
    expect(unlimited).toBeGreaterThan(20);
    expect(
      exampleSql(
        verifiedQueries().find((v) => v.question === 'Which community areas had the most burglaries in 2020?')!,
        ctx,
      ),
    ).not.toMatch(/LIMIT/);
    expect(
      exampleSql(
        verifiedQueries().find((v) => v.question === 'What were the top 5 crime types in 2019?')!,
        ctx,
      ),
    ).toMatch(/LIMIT 5/);
  });

  it('a question that rests on a glossary term compiles with the choice given, else its first option', () => {
    const night = verifiedQueries().find((v) => v.id === 'night_type_year')!;
    expect(fixturePlan(night, ctx)?.choices).toEqual({ night: expect.any(String) });
    expect(exampleSql(night, ctx, { night: '18-06' }) ?? '').not.toBe(exampleSql(night, ctx));
  });
});
