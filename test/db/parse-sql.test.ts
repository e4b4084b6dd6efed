import { describe, expect, it } from 'vitest';
import { parse } from 'libpg-query';
import { parseSql } from '../../src/db/parse-sql.js';
import { checkSql } from '../../src/db/sql-guard.js';

describe('parseSql (cached libpg-query parse)', () => {
  it('gives the parser’s own tree, the same frozen object for the same text', async () => {
    const sql = 'SELECT count(*) FROM crimes WHERE year = 2020';
    const first = await parseSql(sql);
    expect(first).toEqual(await parse(sql));
    expect(await parseSql(sql)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const stmts = (first as { stmts: { stmt: { SelectStmt: { targetList: unknown[] } } }[] }).stmts;
    expect(Object.isFrozen(stmts[0].stmt.SelectStmt.targetList)).toBe(true);
    expect(() => {
      (stmts as unknown[]).push({});
    }).toThrow(TypeError);
  });

  it('keys by the exact text: a text differing by one character has its own tree', async () => {
    const a = await parseSql('SELECT 1 FROM crimes');
    const b = await parseSql('SELECT 1 FROM crimes ');
    const c = await parseSql('SELECT 1 FROM crimes; DELETE FROM crimes');
    expect(b).not.toBe(a);
    expect((c as { stmts: unknown[] }).stmts).toHaveLength(2);
    expect((await checkSql('SELECT 1 FROM crimes; DELETE FROM crimes')).ok).toBe(false);
    expect((await checkSql('SELECT 1 FROM crimes')).ok).toBe(true);
  });

  it('rejects a text that does not parse with the parser’s error, every time', async () => {
    const sql = 'SELEC count(*) FROM crimes';
    const direct = await parse(sql).catch((e: Error) => e);
    for (let i = 0; i < 2; i++) {
      const cached = await parseSql(sql).catch((e: Error & { sqlDetails?: unknown }) => e);
      expect(cached).toBeInstanceOf(Error);
      expect((cached as Error).message).toBe((direct as Error).message);
      expect((cached as { sqlDetails?: unknown }).sqlDetails).toEqual((direct as { sqlDetails?: unknown }).sqlDetails);
    }
    const verdict = await checkSql(sql);
    expect(verdict).toMatchObject({ ok: false, reason: 'parse_error' });
    expect(await checkSql(sql)).toEqual(verdict);
  });

  it('keeps at most a few hundred texts: an old one is parsed again, equal but not the same object', async () => {
    const old = await parseSql('SELECT 0 AS n FROM crimes');
    for (let i = 1; i <= 600; i++) await parseSql(`SELECT ${i} AS n FROM crimes`);
    const again = await parseSql('SELECT 0 AS n FROM crimes');
    expect(again).toEqual(old);
    expect(again).not.toBe(old);
  });
});
