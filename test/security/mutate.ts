// Rewrites of a SQL statement that an attacker steering the model would try
// against a guard: the same statement spelled differently (case, quoting,
// schema qualification, comments, string-escape forms, functional notation)
// or moved somewhere else in a larger query (subqueries, CTEs, CASE,
// COALESCE, window, LATERAL, VALUES, UNION …). Token-level, on PostgreSQL's
// own scanner (libpg-query), with a seeded PRNG so that every run makes the
// same mutants.
import { scan, type ScanToken } from 'libpg-query';

type Rng = () => number;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];

interface Token extends ScanToken {
  /** the text between the previous token and this one: whitespace and comments */
  gap: string;
}

/** The statement's tokens, comments folded into the gaps so that neighbours are the tokens that count. */
async function tokens(sql: string): Promise<{ list: Token[]; tail: string } | undefined> {
  let scanned: ScanToken[];
  try {
    scanned = (await scan(sql)).tokens;
  } catch {
    return undefined;
  }
  let at = 0;
  const list: Token[] = [];
  for (const t of scanned) {
    if (t.tokenName === 'C_COMMENT' || t.tokenName === 'SQL_COMMENT') continue;
    list.push({ ...t, gap: sql.slice(at, t.start) });
    at = t.end;
  }
  return { list, tail: sql.slice(at) };
}

const join = (list: { gap: string; text: string }[], tail: string) => list.map((t) => t.gap + t.text).join('') + tail;

/** a bare (unquoted) identifier: folded to lower case by PostgreSQL */
const isBareIdent = (t: Token) => t.tokenName === 'IDENT' && /^[A-Za-z_][A-Za-z0-9_$]*$/.test(t.text);
const isKeyword = (t: Token) => t.keywordKind > 0 && /^[A-Za-z_]+$/.test(t.text);
/** functions whose names the scanner reports as keywords */
const KEYWORD_FUNCTIONS = new Set(['version', 'left', 'right', 'format']);
/**
 * The name of a function call at `i` (followed by '(', not qualified): a bare identifier or a function named like a
 * keyword (version(), left()). Not the keywords of SQL syntax (extract(… FROM …), coalesce(…), OVER (…), COPY (…)),
 * which are no plain calls.
 */
function isCallName(list: Token[], i: number): boolean {
  const t = list[i];
  const before = list[i - 1];
  if (list[i + 1]?.text !== '(' || before?.text === '.') return false;
  // `AS t(a int)`, `(VALUES …) v(x)`, `CREATE TABLE t (…)`: a name with a column list, not a call
  if (before && (isBareIdent(before) || /^(as|\)|table|on|index|into|view|function|procedure|trigger|extension)$/i.test(before.text)))
    return false;
  return isBareIdent(t) || (t.keywordKind > 0 && KEYWORD_FUNCTIONS.has(t.text.toLowerCase()));
}

/** A call in FROM is a range, not a value: (x).f or CASE … END have no place there. */
const inFrom = (list: Token[], i: number) =>
  (/^(from|join|lateral|,)$/i.test(list[i - 1]?.text ?? '') && list[i - 1]?.text !== ',') || isRangeAfterComma(list, i);

/**
 * Walking back from `j`, the first word at the same bracket depth that
 * `stop` matches (lower case); undefined when an opening bracket comes first
 * (the walk left the enclosing parentheses) or the start is reached.
 */
function firstWordBack(list: Token[], j: number, stop: RegExp): string | undefined {
  let depth = 0;
  for (; j >= 0; j--) {
    const w = list[j].text.toLowerCase();
    if (w === ')') depth++;
    else if (w === '(') {
      if (depth === 0) return undefined;
      depth--;
    } else if (depth === 0 && stop.test(w)) return w;
  }
  return undefined;
}

/** `FROM a, f(x)`: a call after a comma that continues a FROM list. */
function isRangeAfterComma(list: Token[], i: number): boolean {
  if (list[i - 1]?.text !== ',') return false;
  const w = firstWordBack(list, i - 2, /^(from|join|select|where|group|order|having|on|using|values)$/);
  return w === 'from' || w === 'join';
}

/**
 * A relation name at `i`: right after JOIN, or after the FROM of a SELECT (not the FROM inside extract(… FROM …),
 * substring(… FROM …) or trim(… FROM …)), and not a CTE's name, which qualified would name a table instead.
 */
function isRelationName(list: Token[], i: number, cteNames: Set<string>): boolean {
  const t = list[i];
  if (!isBareIdent(t) || list[i + 1]?.text === '.' || list[i + 1]?.text === '(' || list[i - 1]?.text === '.') return false;
  if (cteNames.has(t.text.toLowerCase())) return false;
  const before = list[i - 1]?.text.toLowerCase();
  if (before === 'join') return true;
  if (before !== 'from') return false;
  // the FROM belongs to a SELECT when a SELECT comes first walking back at the same depth
  return firstWordBack(list, i - 2, /^select$/) === 'select';
}

/** The name an identifier token stands for: bare (folded), "quoted" or U&"\XXXX" spelled. */
function identName(t: Token): string | undefined {
  if (isBareIdent(t)) return t.text.toLowerCase();
  const quoted = /^"((?:[^"]|"")*)"$/.exec(t.text);
  if (quoted) return quoted[1].replace(/""/g, '"');
  const unicode = /^[uU]&"((?:[^"]|"")*)"$/.exec(t.text);
  if (unicode) return unicode[1].replace(/\\([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return undefined;
}

/** Names a WITH defines: `name AS (`, `name AS [NOT] MATERIALIZED (`, `name(cols) AS (`, however spelled. */
function cteNamesOf(list: Token[]): Set<string> {
  const names = new Set<string>();
  list.forEach((t, i) => {
    let j = i + 1;
    if (list[j]?.text === '(') j = closing(list, j) + 1;
    const name = identName(t);
    if (name && j > 0 && list[j]?.text.toLowerCase() === 'as' && /^(\(|not|materialized)$/i.test(list[j + 1]?.text ?? '')) names.add(name);
  });
  return names;
}

/** a plain '…' literal (not E'', U&'', $$ or a bit string) */
const isPlainString = (t: Token) => t.tokenName === 'SCONST' && t.text.startsWith("'");

function mixCase(rng: Rng, word: string): string {
  switch (Math.floor(rng() * 3)) {
    case 0:
      return word.toUpperCase();
    case 1:
      return word.toLowerCase();
    default:
      return [...word].map((c) => (rng() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
  }
}

/** The value of a plain '…' literal. */
const literalValue = (text: string) => text.slice(1, -1).replace(/''/g, "'");

/** The same string value in another spelling PostgreSQL accepts. */
function respell(rng: Rng, value: string): string {
  const forms: (() => string | undefined)[] = [
    () => `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
    () => (value.includes('$$') ? undefined : `$$${value}$$`),
    () => (value.includes('$q$') ? undefined : `$q$${value}$q$`),
    // U& with every letter as a \XXXX escape
    () =>
      `U&'${[...value].map((c) => (/[a-z]/i.test(c) ? `\\${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c === '\\' ? '\\\\' : c === "'" ? "''" : c)).join('')}'`,
    // adjacent literals separated by a newline are one constant
    () => {
      if (value.length < 2) return undefined;
      const cut = 1 + Math.floor(rng() * (value.length - 1));
      const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
      return `${q(value.slice(0, cut))}\n${q(value.slice(cut))}`;
    },
  ];
  for (let i = 0; i < 5; i++) {
    const spelled = pick(rng, forms)();
    if (spelled) return spelled;
  }
  return `'${value.replace(/'/g, "''")}'`;
}

const COMMENTS = ['/**/', '/* x */', '/* /* nested */ */', '--c\n', '-- SELECT 1\n', '\n', '\t', '\r\n  ', '/*\n*/'];

/** Index of the token closing the parenthesis opened at `open`, or -1. */
function closing(list: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < list.length; i++) {
    if (list[i].text === '(') depth++;
    else if (list[i].text === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Function calls `name(arg)` with exactly one argument and an unqualified name: [name index, '(' index, ')' index]. */
function singleArgCalls(list: Token[]): [number, number, number][] {
  const calls: [number, number, number][] = [];
  list.forEach((_, i) => {
    if (!isCallName(list, i) || inFrom(list, i)) return;
    const end = closing(list, i + 1);
    // count(*) has no argument to move
    if (end <= i + 2 || (end === i + 3 && list[i + 2].text === '*')) return;
    let depth = 0;
    for (let j = i + 2; j < end; j++) {
      if (list[j].text === '(') depth++;
      else if (list[j].text === ')') depth--;
      else if (list[j].text === ',' && depth === 0) return;
    }
    calls.push([i, i + 1, end]);
  });
  return calls;
}

/** Every function call `name(…)` with an unqualified name: [name index, ')' index]. */
function calls(list: Token[]): [number, number][] {
  const found: [number, number][] = [];
  list.forEach((_, i) => {
    if (!isCallName(list, i) || inFrom(list, i)) return;
    const end = closing(list, i + 1);
    if (end > 0) found.push([i, end]);
  });
  return found;
}

const text = (list: Token[], from: number, to: number) => join(list.slice(from, to + 1), '').trim();

type Mutator = (sql: string, rng: Rng) => Promise<string | undefined>;

/** A statement-level wrapper: S moved into a bigger query. */
const NESTINGS: ((s: string) => string)[] = [
  (s) => `SELECT * FROM (${s}) AS n0`,
  (s) => `SELECT (${s}) AS n0`,
  (s) => `WITH n0 AS (${s}) SELECT * FROM n0`,
  (s) => `WITH n0 AS MATERIALIZED (${s}) SELECT count(*) FROM n0`,
  (s) => `WITH RECURSIVE n0 AS (${s}) SELECT * FROM n0`,
  (s) => `SELECT count(*) FROM crimes WHERE EXISTS (${s})`,
  (s) => `SELECT 1 WHERE 1 IN (${s})`,
  (s) => `SELECT CASE WHEN true THEN (${s}) ELSE NULL END`,
  (s) => `SELECT COALESCE((${s}), NULL)`,
  (s) => `SELECT count(*) OVER (PARTITION BY (${s})) FROM crimes`,
  (s) => `SELECT * FROM crimes c CROSS JOIN LATERAL (${s}) AS n0`,
  (s) => `SELECT * FROM crimes c LEFT JOIN LATERAL (${s}) AS n0 ON true`,
  (s) => `SELECT * FROM (VALUES ((${s}))) AS n0(x)`,
  (s) => `SELECT 1 UNION ALL (${s})`,
  (s) => `(${s}) UNION SELECT 1`,
  (s) => `SELECT 1 INTERSECT (${s}) EXCEPT SELECT 2`,
  (s) => `SELECT ARRAY(${s})`,
  (s) => `SELECT id FROM crimes ORDER BY (${s}) LIMIT 1`,
  (s) => `SELECT primary_type FROM crimes GROUP BY primary_type HAVING (${s}) IS NULL`,
  (s) => `SELECT (SELECT (${s}))`,
  (s) => `(${s})`,
];

/** An expression-level wrapper: one call moved into another construct. */
const EXPRESSION_NESTINGS: ((e: string) => string)[] = [
  (e) => `(SELECT ${e})`,
  (e) => `COALESCE(${e}, NULL)`,
  (e) => `CASE WHEN true THEN ${e} END`,
  (e) => `CASE ${e} WHEN NULL THEN NULL ELSE ${e} END`,
  (e) => `(SELECT x FROM (VALUES (${e})) v(x))`,
  (e) => `(SELECT max(x) OVER () FROM (SELECT ${e} AS x) s)`,
  (e) => `(WITH w AS (SELECT ${e} AS x) SELECT x FROM w)`,
  (e) => `(SELECT x FROM (SELECT 1) a CROSS JOIN LATERAL (SELECT ${e} AS x) l)`,
  (e) => `GREATEST(${e}, NULL)`,
  (e) => `NULLIF(${e}, NULL)`,
  (e) => `(ARRAY[${e}])[1]`,
];

export const MUTATORS: Record<string, Mutator> = {
  /** keywords and bare identifiers in upper, lower or mixed case (PostgreSQL folds them) */
  async case(sql, rng) {
    const t = await tokens(sql);
    if (!t) return undefined;
    return join(
      t.list.map((x) => ((isKeyword(x) || isBareIdent(x)) && rng() < 0.7 ? { ...x, text: mixCase(rng, x.text) } : x)),
      t.tail,
    );
  },

  /** bare identifiers as quoted identifiers ("name", its folded spelling, so the same name) */
  async quote(sql, rng) {
    const t = await tokens(sql);
    if (!t) return undefined;
    let changed = false;
    const list = t.list.map((x) => {
      if (!isBareIdent(x) || rng() < 0.3) return x;
      changed = true;
      const name = x.text.toLowerCase();
      return {
        ...x,
        text: rng() < 0.2 ? `U&"${[...name].map((c) => `\\${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` : `"${name}"`,
      };
    });
    return changed ? join(list, t.tail) : undefined;
  },

  /** function names qualified with pg_catalog, relation names with public or pg_catalog, in several spellings */
  async qualify(sql, rng) {
    const t = await tokens(sql);
    if (!t) return undefined;
    let changed = false;
    const ctes = cteNamesOf(t.list);
    const list = t.list.map((x, i) => {
      const call = isCallName(t.list, i);
      if ((!call && !isRelationName(t.list, i, ctes)) || rng() < 0.3) return x;
      changed = true;
      const schema = call
        ? pick(rng, ['pg_catalog.', 'PG_CATALOG.', '"pg_catalog".', 'pg_catalog . ', 'Pg_Catalog.'])
        : pick(rng, ['public.', '"public".', 'PUBLIC.', 'public . ']);
      return { ...x, text: schema + x.text };
    });
    return changed ? join(list, t.tail) : undefined;
  },

  /** comments and odd whitespace between tokens */
  async comments(sql, rng) {
    const t = await tokens(sql);
    if (!t || t.list.length < 2) return undefined;
    const list = t.list.map((x, i) => (i > 0 && rng() < 0.4 ? { ...x, gap: `${x.gap || ' '}${pick(rng, COMMENTS)}` } : x));
    return join(list, t.tail);
  },

  /** string literals in another escape form: E'…', $$…$$, $q$…$q$, U&'\XXXX', split constants */
  async strings(sql, rng) {
    const t = await tokens(sql);
    if (!t) return undefined;
    let changed = false;
    const list = t.list.map((x, i) => {
      if (!isPlainString(x)) return x;
      changed = true;
      // a constant glued to a word would become part of it: keep a space
      const glued = /[A-Za-z0-9_$]$/.test(t.list[i - 1]?.text ?? '') && x.gap === '';
      return { ...x, text: respell(rng, literalValue(x.text)), gap: glued ? ' ' : x.gap };
    });
    return changed ? join(list, t.tail) : undefined;
  },

  /** a one-argument call f(x) as functional notation: (x).f, alias.f over a one-row range, or alias.f beside a real column f */
  async functional(sql, rng) {
    const t = await tokens(sql);
    if (!t) return undefined;
    const found = singleArgCalls(t.list);
    if (!found.length) return undefined;
    const [name, open, close] = pick(rng, found);
    const fn = t.list[name].text;
    const arg = `(${text(t.list, open + 1, close - 1)})`;
    const forms = [
      `((${arg})).${fn}`,
      `(${arg}).${fn}`,
      `(SELECT g0.${fn} FROM unnest(ARRAY[${arg}]) g0)`,
      `(SELECT g0.${fn} FROM unnest(ARRAY[${arg}]) AS g0 WHERE true)`,
      `(SELECT g0.${fn} FROM (SELECT 1 AS ${fn}) s0, unnest(ARRAY[${arg}]) g0)`,
      `(SELECT g0.${fn} FROM unnest(ARRAY[${arg}]) g0, (SELECT 1 AS ${fn}) g1)`,
      `(SELECT 1 AS ${fn}, g0.${fn} FROM unnest(ARRAY[${arg}]) g0)`,
      `(SELECT g0.${fn} FROM unnest(ARRAY[${arg}]) WITH ORDINALITY g0)`,
      `(SELECT (SELECT g0.${fn} FROM unnest(ARRAY[${arg}]) g0) FROM (SELECT 1 AS ${fn}) g0)`,
    ];
    const replaced = [
      ...t.list.slice(0, name),
      { ...t.list[name], text: pick(rng, forms), gap: t.list[name].gap || ' ' },
      ...t.list.slice(close + 1),
    ];
    return join(replaced, t.tail);
  },

  /** one call moved into a subquery, COALESCE, CASE, VALUES, a window, a CTE, LATERAL … */
  async nestExpression(sql, rng) {
    const t = await tokens(sql);
    if (!t) return undefined;
    const found = calls(t.list);
    if (!found.length) return undefined;
    const [from, to] = pick(rng, found);
    // keep a schema qualifier with its name
    const start = t.list[from - 1]?.text === '.' && from >= 2 ? from - 2 : from;
    const wrapped = pick(rng, EXPRESSION_NESTINGS)(text(t.list, start, to));
    return join(
      [...t.list.slice(0, start), { ...t.list[start], text: wrapped, gap: t.list[start].gap || ' ' }, ...t.list.slice(to + 1)],
      t.tail,
    );
  },

  /** the whole statement moved into a bigger query */
  async nest(sql, rng) {
    const body = sql.trim().replace(/;+\s*$/, '');
    // only a query (or a data-modifying statement, for WITH) is a query inside another one: `SELECT (COMMIT)` reads a
    // column called commit, a different and harmless statement
    if (!/^(\(|select\b|with\b|values\b|table\b|insert\b|update\b|delete\b|merge\b)/i.test(body)) return undefined;
    // a trailing line comment would swallow the wrapper's closing parenthesis
    return pick(rng, NESTINGS)(/--[^\n]*$/.test(body) ? `${body}\n` : body);
  },
};

export type MutatorName = keyof typeof MUTATORS;

/** The rewrites that keep the statement's meaning: a guard must give the same verdict before and after. */
export const RESPELLINGS: MutatorName[] = ['case', 'quote', 'qualify', 'comments', 'strings'];

export interface Mutant {
  sql: string;
  base: string;
  steps: string[];
}

/**
 * `count` mutants of the given statements, each one to three mutators deep (from `names`: all by default; the
 * functional notation, which applies only to one-argument calls, is drawn three times as often).
 */
export async function mutants(bases: string[], count: number, seed: number, only?: string[]): Promise<Mutant[]> {
  const rng = seededRng(seed);
  const names = only ?? Object.keys(MUTATORS).flatMap((n) => (n === 'functional' ? [n, n, n] : [n]));
  const out: Mutant[] = [];
  for (let attempts = 0; out.length < count && attempts < count * 20; attempts++) {
    const base = pick(rng, bases);
    let sql = base;
    const steps: string[] = [];
    const depth = 1 + Math.floor(rng() * 3);
    for (let i = 0; i < depth; i++) {
      const name = pick(rng, names);
      const next = await MUTATORS[name](sql, rng);
      if (next !== undefined && next !== sql) {
        sql = next;
        steps.push(name);
      }
    }
    if (steps.length) out.push({ sql, base, steps });
  }
  return out;
}
