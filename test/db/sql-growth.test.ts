// The guard's bound on how long a value model-written SQL can build (src/db/sql-growth.ts): the string bombs an
// outside attacker found (8 nested replace took a reader backend to 2 GB, estimated by EXPLAIN at one row, and
// EXPLAIN itself runs it: the planner folds functions of constants) are refused before anything reaches the server;
// ordinary string handling passes. What the bound admits is run, and the backend's peak memory measured.
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSql } from '../../src/db/sql-guard.js';
import { exponential } from '../../src/db/sql-growth.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const TEN = "'aaaaaaaaaa'";
/** replace(…replace(base, 'a', 'aaaaaaaaaa')…): ten times longer at each level */
const nested = (depth: number, base = TEN) => {
  let sql = base;
  for (let i = 0; i < depth; i++) sql = `replace(${sql}, 'a', 'aaaaaaaaaa')`;
  return sql;
};

const BOMBS: [string, string, RegExp][] = [
  [
    "the attacker's 8 nested replace",
    `SELECT length(${nested(8)}) AS n`,
    /^The query lengthens text too far: 8 replace\(\) calls nested in each other could make a single value of 953\.7 MB \(at most 1\.0 MB\)\. Lengthen text less, or count instead\.$/,
  ],
  ['9 nested replace', `SELECT length(${nested(9)}) AS n`, /single value of 9\.3 GB/],
  ['nested replace on a column', `SELECT max(length(${nested(4, 'description')})) FROM crimes`, /4 replace\(\) calls nested/],
  ['a replace bomb behind casts and collations', `SELECT length(${nested(7, `${TEN}::text COLLATE "C"`)}::text)`, /too far/],
  [
    'nested regexp_replace with an empty pattern',
    `SELECT length(regexp_replace(regexp_replace(regexp_replace(regexp_replace(description, '', 'aaaaaaaaaa', 'g'), '', 'aaaaaaaaaa', 'g'), '', 'aaaaaaaaaa', 'g'), '', 'aaaaaaaaaa', 'g')) FROM crimes`,
    /regexp_replace\(\) calls nested/,
  ],
  [
    'replace by a value it made itself',
    `SELECT length(replace(replace(description, 'a', description), 'a', replace(description, 'a', description))) FROM crimes`,
    /too far/,
  ],
  ['lpad to a billion', "SELECT length(lpad('a', 1000000000, 'b'))", /lpad\(\) could make a single value of 3\.7 GB/],
  ['rpad to a length it computes', "SELECT rpad('a', id, 'b') FROM crimes", /rpad\(\) could make a single value of any size/],
  [
    'replace spread over CTEs, one level each',
    `WITH a AS (SELECT ${nested(1, 'description')} AS s FROM crimes), b AS (SELECT ${nested(1, 's')} AS s FROM a), c AS (SELECT ${nested(1, 's')} AS s FROM b), d AS (SELECT ${nested(1, 's')} AS s FROM c) SELECT length(s) FROM d`,
    /4 replace\(\) calls nested/,
  ],
  [
    'replace through a subquery',
    `SELECT length(${nested(4, 's')}) FROM (SELECT ${nested(2, 'description')} AS s FROM crimes) x`,
    /too far/,
  ],
  [
    'doubling by ||, five CTEs deep',
    'WITH a AS (SELECT s || s || s || s AS s FROM (SELECT description || description || description || description AS s FROM crimes) x), b AS (SELECT s||s||s||s AS s FROM a), c AS (SELECT s||s||s||s AS s FROM b), d AS (SELECT s||s||s||s AS s FROM c), e AS (SELECT concat(s, s, s, s) AS s FROM d), f AS (SELECT s || s AS s FROM e) SELECT length(s) FROM f',
    /too far: \|\| of concat\(\) of \|\| of \|\| of …/,
  ],
  [
    'doubling in a recursive WITH',
    "WITH RECURSIVE r(s, n) AS (SELECT 'a'::text, 1 UNION ALL SELECT s || s, n + 1 FROM r WHERE n < 40) SELECT length(s) FROM r",
    /^The query's recursive WITH r builds each round's text from the previous round's more than once \(s\), so it doubles every round/,
  ],
  [
    'two columns of a recursive WITH feeding each other',
    "WITH RECURSIVE r(a, b, n) AS (SELECT 'x'::text, 'y'::text, 1 UNION ALL SELECT a || b, b || a, n + 1 FROM r WHERE n < 40) SELECT length(a) FROM r",
    /recursive WITH r .* more than once \(a, b\)/,
  ],
  [
    'replace of itself in a recursive WITH',
    `WITH RECURSIVE r(s, n) AS (SELECT ${TEN}, 1 UNION ALL SELECT ${nested(1, 's')}, n + 1 FROM r WHERE n < 9) SELECT length(s) FROM r`,
    /recursive WITH r/,
  ],
  [
    'a window string_agg of lengthened text',
    `SELECT string_agg(${nested(1, 'description')}, ',') OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM crimes`,
    /^The query collects lengthened text: string_agg\(\) OVER \(…\) of replace\(\) could add 2\.5 KB for every row it collects \(at most 1\.0 KB\)\. Collect the plain column, or count instead\.$/,
  ],
  [
    'array_agg of lengthened text',
    `SELECT array_agg(${nested(1, 'block')}) FROM crimes`,
    /collects lengthened text: array_agg\(\) of replace\(\)/,
  ],
  ['a long separator', `SELECT string_agg(block, ${`'${'x'.repeat(2000)}'`}) FROM crimes`, /collects lengthened text/],
  [
    'ARRAY(SELECT …) of lengthened text',
    `SELECT cardinality(ARRAY(SELECT ${nested(2, 'description')} FROM crimes))`,
    /ARRAY\(SELECT …\) of replace\(\)/,
  ],
  [
    'lengthening a collected list',
    `SELECT length(replace(string_agg(description, ','), ',', ${`'${'x'.repeat(20)}'`})) FROM crimes`,
    /collects lengthened text: replace\(\) of string_agg\(\)/,
  ],
  [
    'a collected list as the replacement',
    "SELECT replace(description, 'a', (SELECT string_agg(description, '') FROM crimes)) FROM crimes",
    /any size/,
  ],
];

const ORDINARY = [
  "SELECT replace(block, 'XX', '00') FROM crimes",
  "SELECT concat(primary_type, ' ', description) FROM crimes",
  "SELECT lpad(beat::text, 4, '0') AS beat FROM crimes",
  'SELECT rpad(primary_type, 30) FROM crimes',
  "SELECT primary_type || ' - ' || description || ' (' || block || ', ' || location_description || ')' FROM crimes",
  "SELECT concat_ws(', ', block, primary_type, description, location_description) FROM crimes",
  "SELECT replace(replace(replace(replace(lower(description), ',', ''), '.', ''), '-', ' '), '  ', ' ') FROM crimes",
  "SELECT regexp_replace(description, '\\s+', ' ', 'g') FROM crimes",
  "SELECT regexp_replace(block, '^(\\d+)X+ ', '\\1 ') FROM crimes",
  "SELECT translate(block, 'X', '0') FROM crimes",
  "SELECT replace(primary_type, ' ', ' / ') FROM crimes",
  `SELECT length(${nested(2, 'description')}) FROM crimes`,
  "SELECT district, string_agg(DISTINCT primary_type, ', ' ORDER BY primary_type) FROM crimes GROUP BY district",
  "SELECT string_agg(concat(primary_type, ': ', description), '; ') FROM crimes WHERE id < 100",
  "SELECT array_to_string(array_agg(DISTINCT primary_type), ', ') FROM crimes",
  'SELECT array_agg(block) OVER (ORDER BY date ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM crimes',
  "WITH RECURSIVE r(s, n) AS (SELECT 'a'::text, 1 UNION ALL SELECT s || '>' || n::text, n + 1 FROM r WHERE n < 10) SELECT s FROM r",
  "WITH t AS (SELECT primary_type || ' ' || description AS label, count(*) AS n FROM crimes GROUP BY 1) SELECT upper(label), n FROM t ORDER BY n DESC LIMIT 10",
  "WITH RECURSIVE path(area, trail, depth) AS (SELECT community_area, name, 1 FROM community_areas WHERE community_area = 1 UNION ALL SELECT c.community_area, p.trail || ' > ' || c.name, p.depth + 1 FROM path p JOIN community_areas c ON c.community_area = p.area + 1 WHERE p.depth < 5) SELECT trail FROM path",
  "SELECT initcap(lower(primary_type)) || ' in ' || to_char(date, 'Mon YYYY') FROM crimes",
];

describe('the bound on how long a value a query can build', () => {
  it.each(BOMBS)('refuses %s before it runs', async (_name, sql, message) => {
    const verdict = await checkSql(sql);
    expect(verdict).toMatchObject({ ok: false, reason: 'too_long' });
    expect(!verdict.ok && verdict.message).toMatch(message);
  });

  it('refuses repeat() and format() as functions not on the list (their growth has no visible bound)', async () => {
    expect(await checkSql("SELECT length(repeat('a', 1000000000))")).toMatchObject({ ok: false, reason: 'forbidden_function' });
    expect(await checkSql("SELECT format('%1000000000s', 'a')")).toMatchObject({ ok: false, reason: 'forbidden_function' });
  });

  it('tells a loop that adds each round from one that multiplies', () => {
    expect(exponential([[1]])).toBeUndefined(); // s || 'x'
    expect(exponential([[2]])).toEqual([0]); // s || s
    expect(
      exponential([
        [1, 1],
        [0, 1],
      ]),
    ).toBeUndefined(); // s || n::text, n + 1
    expect(
      exponential([
        [1, 1],
        [1, 1],
      ]),
    ).toEqual([0, 1]); // a || b, b || a
    expect(
      exponential([
        [0, 1],
        [1, 0],
      ]),
    ).toBeUndefined(); // a and b swapped every round
    expect(
      exponential([
        [0, 0],
        [0, 0],
      ]),
    ).toBeUndefined();
  });

  it('accepts ordinary string handling', async () => {
    for (const sql of ORDINARY) expect(await checkSql(sql), sql).toMatchObject({ ok: true });
  });
});

// what the bound admits at its edge, run as a superuser with none of the reader's limits: the backend's peak memory
// (VmHWM in /proc/<pid>/status) stays small. Skipped when the server's processes are not visible from here.
describe('what the bound admits stays small when it runs', () => {
  let db: TestDatabase;
  let client: pg.Client;
  let pid = 0;
  const peakKb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  beforeAll(async () => {
    db = await createTestDatabase();
    await loadCrimes(db.pool, 2_000);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query("SET statement_timeout = '20s'");
    pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  const EDGE = [
    `SELECT length(${nested(4)}) AS n`,
    `SELECT max(length(${nested(3, 'description')})) FROM crimes`,
    "SELECT max(length(regexp_replace(regexp_replace(description, '', 'aaaaaaaaaa', 'g'), '', 'aaaaaaaaaa', 'g'))) FROM crimes",
    "SELECT length(string_agg(replace(primary_type, 'A', 'AA'), ',')) FROM crimes",
    "SELECT max(length(s)) FROM (SELECT string_agg(description, ', ') OVER (ORDER BY id) AS s FROM crimes) w",
    "WITH RECURSIVE r(s, n) AS (SELECT 'a'::text, 1 UNION ALL SELECT s || 'aaaaaaaaaa', n + 1 FROM r WHERE n < 2000) SELECT max(length(s)) FROM r",
  ];

  it.skipIf(!existsSync('/proc/self/status'))('each admitted query peaks under 64 MB', async () => {
    if (!existsSync(`/proc/${pid}/status`)) return; // a server in another pid namespace (a container): nothing to read
    const before = peakKb();
    for (const sql of EDGE) {
      expect(await checkSql(sql), sql).toMatchObject({ ok: true });
      await client.query(sql);
    }
    const grew = peakKb() - before;
    console.info(`backend peak grew by ${grew} kB running ${EDGE.length} admitted queries`);
    expect(grew).toBeLessThan(64 * 1024);
  });
});
