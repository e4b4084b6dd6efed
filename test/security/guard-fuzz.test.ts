// A mutation fuzzer against the SQL guard: every statement of the hostile
// corpus that the guard refuses is rewritten the ways an attacker would try
// (see mutate.ts: case, quoting, schema qualification, functional notation,
// nesting in subqueries, CTEs, CASE, COALESCE, windows, LATERAL, VALUES, set
// operations, comments and whitespace, E''/$$/U&'' strings), a few thousand
// mutants from a fixed seed, and no mutant may be accepted (one that no longer
// parses is refused too). Mutants it once let through are kept in the corpus
// (class fuzz_regression). The same respellings of the benchmark's gold
// queries must still be accepted, reading the same tables: the rewrites keep
// meaning, and the guard does not refuse honest SQL spelled differently.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { checkSql } from '../../src/db/sql-guard.js';
import { sqlAllowList } from '../../src/db/sql-allowlist.js';
import { loadCorpus } from './corpus.js';
import { MUTATORS, RESPELLINGS, mutants } from './mutate.js';

const SEED = 0x5eed_0011;
const COUNT = 4_000;

const { entries } = loadCorpus();
/** statements the guard must refuse; malformed ones (parse_error, empty) are no attack to rewrite */
const BASES = entries.filter((h) => h.reason && h.reason !== 'parse_error' && h.reason !== 'empty').map((h) => h.sql);
const GOLD = readFileSync('fixtures/benchmarks/crime-100.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { id: string; sql: string });

describe('SQL guard under mutation', () => {
  it(`no rewrite of a refused statement is accepted (${COUNT} mutants, seed ${SEED})`, async () => {
    const started = performance.now();
    const list = await mutants(BASES, COUNT, SEED);
    expect(list).toHaveLength(COUNT);
    const accepted: string[] = [];
    const parsedBy: Record<string, number> = Object.fromEntries(Object.keys(MUTATORS).map((m) => [m, 0]));
    let parsed = 0;
    for (const m of list) {
      const verdict = await checkSql(m.sql);
      if (verdict.ok) accepted.push(`${m.steps.join(' + ')}\n  from: ${m.base}\n  to:   ${m.sql}`);
      else if (verdict.reason !== 'parse_error') {
        parsed++;
        for (const step of new Set(m.steps)) parsedBy[step]++;
      }
    }
    expect(accepted).toEqual([]);
    // the mutants are SQL, not noise: most of them parse, and every kind of rewrite made many that do
    expect(parsed / COUNT).toBeGreaterThan(0.9);
    for (const [name, n] of Object.entries(parsedBy)) expect(n, name).toBeGreaterThan(250);
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('the same fuzzer, run on the same seed, makes the same mutants', async () => {
    const a = await mutants(BASES, 50, SEED);
    const b = await mutants(BASES, 50, SEED);
    expect(b).toEqual(a);
    expect((await mutants(BASES, 50, SEED + 1)).map((m) => m.sql)).not.toEqual(a.map((m) => m.sql));
  });

  it('all 100 gold queries of the benchmark pass the guard, and so do their respellings (same tables)', async () => {
    expect(GOLD).toHaveLength(100);
    const refused: string[] = [];
    for (const g of GOLD) {
      const verdict = await checkSql(g.sql);
      if (!verdict.ok) refused.push(`${g.id}: ${verdict.message}`);
    }
    expect(refused).toEqual([]);
    const tablesOf = new Map<string, string[]>();
    for (const g of GOLD) tablesOf.set(g.sql, ((await checkSql(g.sql)) as { tables: string[] }).tables);
    const changed: string[] = [];
    for (const m of await mutants(
      GOLD.map((g) => g.sql),
      1_000,
      SEED,
      RESPELLINGS,
    )) {
      const verdict = await checkSql(m.sql);
      if (!verdict.ok || verdict.tables.join() !== tablesOf.get(m.base)!.join()) {
        changed.push(
          `${m.steps.join(' + ')}: ${verdict.ok ? verdict.tables.join() : verdict.message}\n  from: ${m.base}\n  to:   ${m.sql}`,
        );
      }
    }
    expect(changed).toEqual([]);
  });
});

describe("the guard's column rule", () => {
  // `alias.name` is let through when the guard believes the range has a column `name`; where it cannot know
  // the columns (`*`, a JOIN's alias) it assumes any data column. That is safe only while no data column
  // shares its name with a function a reader could call on a whole row: today only the casts date() and name().
  it('no data column is named like a callable built-in other than the harmless casts', async () => {
    const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await client.connect();
    try {
      const { rows } = await client.query<{ proname: string }>(
        `SELECT DISTINCT proname FROM pg_proc WHERE proname = ANY($1) AND pronargs >= 1 ORDER BY 1`,
        [[...sqlAllowList().columns]],
      );
      expect(rows.map((r) => r.proname)).toEqual(['date', 'name']);
    } finally {
      await client.end();
    }
  });
});
