// The verified pairs the model is shown: no LIMIT unless the question asks for a number of rows.
import { describe, expect, it } from 'vitest';
import { exampleSql, verifiedQueries } from '../../../src/knowledge/verified-queries.js';

describe('retrieved examples', () => {
  it('carry no LIMIT when their question names no number, and keep it when it does', () => {
    let withoutNumber = 0;
    for (const v of verifiedQueries()) {
      const sql = exampleSql(v) ?? '';
      const asks = /\b\d+\b/.test(v.question.replace(/\b(19|20)\d{2}\b/g, ''));
      if (!asks) {
        withoutNumber++;
        expect(sql, v.question).not.toMatch(/\bLIMIT\b/i);
      } else if (/LIMIT \{n\}/.test(v.template)) expect(sql, v.question).toMatch(/LIMIT \d+$/);
    }
    expect(withoutNumber).toBeGreaterThan(20);
    expect(exampleSql(verifiedQueries().find((v) => v.question === 'Which community areas had the most burglaries in 2020?')!)).not.toMatch(/LIMIT/);
    expect(exampleSql(verifiedQueries().find((v) => v.question === 'What were the top 5 crime types in 2019?')!)).toMatch(/LIMIT 5$/);
  });
});
