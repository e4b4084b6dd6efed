// Aggregate navigation (issue 35, part 5): SQL that counts over `crimes`
// (model-written, or a verified pair) is moved onto the smallest rollup
// (src/db/rollups.ts) that holds every column it filters, groups and counts
// by, as Cube matches a query to a pre-aggregation. PostgreSQL's own parser
// (libpg-query, as the guard uses) finds each query block that reads crimes
// alone; a block is moved only when every part of it is exact over the
// rollup's groups:
// - count(*) (with or without FILTER) becomes sum(n); count(DISTINCT c) and
//   min/max of a kept column are the same over groups as over incidents;
//   avg and sum of an integer (arrest::int, a CASE of whole numbers) weigh
//   each group's value by its n: avg(x) is sum(x * n) / (the n where x is not
//   NULL), the same numeric division avg does over incidents;
// - other columns must be kept whole by the rollup;
// - `date` only through what its grain keeps: extract / date_part / date_trunc
//   of a kept facet, date::date at day grain, and `date >= L` / `date < L`
//   with L a day the grain starts on (date <= L, date > L, date = L are not
//   exact over truncated dates);
// - no row-level output (a block without aggregates lists incidents, unless
//   DISTINCT or GROUP BY keeps each row once: the values found), no
//   window over count(*), no subquery inside the block; a join only to a
//   lookup table on its key (community_areas USING (community_area)): each
//   incident meets at most one row of it, whose columns are free to use.
// Anything else is left on crimes. The SQL shown starts with a comment that
// names the rollup; the differential test (test/db/aggregate-navigation.test.ts)
// runs both forms of random SQL of the shapes models write.
import { readFileSync } from 'node:fs';
import { parseSql } from './parse-sql.js';
import { fixturePath } from '../core/paths.js';
import { CRIME_COLUMNS } from './crime-columns.js';
import { sqlAllowList } from './sql-allowlist.js';
import { GRAIN_FACETS, ROLLUP_MEASURE, ROLLUPS, type Rollup, type RollupGrain, type TimeFacet } from './rollups.js';

export interface Navigated {
  /** the statement on the rollup, its first line a comment naming it */
  sql: string;
  /** the rollups it reads instead of crimes */
  rollups: string[];
}

type Node = Record<string, unknown>;
interface Edit {
  at: number;
  end: number;
  text: string;
}

const KEPT_WHOLE = new Set<string>(CRIME_COLUMNS.filter((c) => c !== 'date'));

/** The facet a date part reads: extract's and date_part's fields, date_trunc's units. */
const FIELD_FACET: Record<string, TimeFacet | undefined> = {
  year: 'year',
  isoyear: 'day',
  quarter: 'month',
  month: 'month',
  week: 'day',
  day: 'day',
  dow: 'weekday',
  isodow: 'weekday',
  doy: 'day',
  hour: 'hour',
};
/** date_trunc to an hour would keep the hour inside the grain's first day (month_hour): only whole units. */
const TRUNC_FACET: Record<string, TimeFacet | undefined> = { year: 'year', quarter: 'month', month: 'month', week: 'day', day: 'day' };
/** Lookup tables a block may join crimes to, by their key (each incident meets at most one of their rows). */
const LOOKUP_KEYS: Record<string, string> = { community_areas: 'community_area' };
/** The types whose avg is numeric_div(sum, count) and whose sum over int4 is int8, as the rewrite computes them. */
const INTEGER_TYPES = new Set(['int', 'integer', 'int4', 'int2', 'smallint']);
/** The functions whose value over groups is their value over incidents (each group is distinct values). */
const SAME_OVER_GROUPS = new Set(['min', 'max']);
/** The aggregates model SQL may call (the guard's allow-list, its aggregate group). */
let aggregates: Set<string> | undefined;
const isAggregate = (name: string) =>
  (aggregates ??= new Set(
    (JSON.parse(readFileSync(fixturePath('sql', 'guard-allowlist.json'), 'utf8')) as { functions: { aggregate: string[] } }).functions
      .aggregate,
  )).has(name);

class NotNavigable extends Error {}
const no = (why: string): never => {
  throw new NotNavigable(why);
};

const str = (n: unknown): string | undefined => (n as { String?: { sval: string } })?.String?.sval;
const names = (list: unknown): string[] => ((list as unknown[]) ?? []).map((x) => str(x) ?? '');
const constText = (n: unknown): string | undefined => {
  const c = (n as { A_Const?: { sval?: { sval: string } } }).A_Const;
  return c?.sval?.sval;
};
/** A string constant, bare or cast to date/timestamp: its text. */
function literalDay(n: unknown): string | undefined {
  const cast = (n as { TypeCast?: { arg: unknown; typeName: { names: unknown[] } } }).TypeCast;
  if (cast) {
    const type = names(cast.typeName.names).at(-1);
    return type === 'date' || type === 'timestamp' ? literalDay(cast.arg) : undefined;
  }
  return constText(n);
}

/** The first grain truncation a literal day survives exactly: aligned to a year, a month, a day. */
function alignedFacet(text: string): TimeFacet | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T]00:00(?::00)?)?$/.exec(text.trim());
  if (!m) return undefined;
  if (m[2] === '01' && m[3] === '01') return 'year';
  return m[3] === '01' ? 'month' : 'day';
}

/** The names a relation is read by in its block: its alias, or its name (and schema.name). */
function qualifiersOf(relation: Node): Set<string> {
  const alias = (relation.alias as { aliasname?: string } | undefined)?.aliasname;
  const name = relation.relname as string;
  return new Set(alias ? [alias] : [name, ...(relation.schemaname ? [`${relation.schemaname as string}.${name}`] : [])]);
}

/** A block's crimes relation, and the lookup table it is joined to on the lookup's key, if any. */
interface CrimesFrom {
  crimes: Node;
  /** the lookup's names in the block, its columns, and the crimes column it is joined on (which the rollup must keep) */
  lookup?: { qualifiers: Set<string>; columns: Set<string>; key: string };
}

/** avg or sum of an integer over incidents: the call's text is replaced by its weighted form over groups. */
interface Weighted {
  fname: 'avg' | 'sum';
  at: number;
  end: number;
  arg: string;
  /** the call is an output of its own (avg(x), not round(avg(x), 2)): the rewrite keeps its name */
  bare: boolean;
}

/** One block reading crimes alone: what it needs of a rollup, and how its text changes. */
class Block {
  readonly columns = new Set<string>();
  readonly facets = new Set<TimeFacet>();
  /** at day grain only: date::date reads whole days, which only a day grain keeps as such */
  dayValue = false;
  readonly counts: { at: number; end: number; wrap: boolean; filterEnd?: number }[] = [];
  readonly weighted: Weighted[] = [];
  aggregates = 0;
  /** the names the block reads its table by (alias or relation name) */
  readonly qualifiers: Set<string>;
  /** a column is qualified by the relation's own name (crimes.year): the rollup is then aliased crimes */
  qualifiedByName = false;

  constructor(
    private readonly text: Buffer,
    readonly select: Node,
    readonly outputs: Set<string>,
    readonly from: CrimesFrom,
  ) {
    this.qualifiers = qualifiersOf(from.crimes);
    if (from.lookup) this.columns.add(from.lookup.key);
  }

  column(ref: Node): void {
    const fields = (ref.fields as unknown[]).map((f) => str(f) ?? ((f as Node).A_Star ? '*' : ''));
    const name = fields.at(-1)!;
    const qualifier = fields.slice(0, -1).join('.');
    if (name === '*') no('a row-level *');
    const lookup = this.from.lookup;
    if (qualifier && lookup?.qualifiers.has(qualifier)) {
      if (!lookup.columns.has(name)) no(`an unknown column ${qualifier}.${name}`);
      return; // the lookup row an incident meets: its columns are the same for the incident's group
    }
    if (qualifier && !this.qualifiers.has(qualifier)) no(`a column of another relation (${qualifier})`);
    if (qualifier && qualifier.endsWith('crimes')) this.qualifiedByName = true;
    if (name === 'date') no('date itself (its grain is truncated)');
    if (KEPT_WHOLE.has(name)) this.columns.add(name);
    else if (!qualifier && (this.outputs.has(name) || lookup?.columns.has(name)))
      return; // ORDER BY an output's name, or a column only the lookup has
    else no(`an unknown column ${name}`);
  }

  /** `date`, read as a whole column reference (no qualifier, or this block's) */
  isDate(n: unknown): boolean {
    const ref = (n as { ColumnRef?: Node }).ColumnRef;
    if (!ref) return false;
    const fields = (ref.fields as unknown[]).map((f) => str(f) ?? '');
    return fields.at(-1) === 'date' && (fields.length === 1 || this.qualifiers.has(fields.slice(0, -1).join('.')));
  }

  expression(n: unknown, inAggregate = false): void {
    if (n === null || n === undefined) return;
    if (Array.isArray(n)) {
      for (const x of n) this.expression(x, inAggregate);
      return;
    }
    const node = n as Node;
    const [kind] = Object.keys(node);
    const body = node[kind] as Node;
    switch (kind) {
      case 'ColumnRef':
        return this.column(body);
      case 'A_Const':
      case 'String':
      case 'Integer':
      case 'Float':
      case 'SQLValueFunction':
        return;
      case 'List':
        return this.expression(body.items, inAggregate);
      case 'TypeCast': {
        const type = names((body.typeName as Node).names).at(-1);
        if (this.isDate(body.arg)) {
          if (type !== 'date') no(`date cast to ${type}`);
          this.facets.add('day');
          this.dayValue = true;
          return;
        }
        return this.expression(body.arg, inAggregate);
      }
      case 'A_Expr':
        return this.operator(body, inAggregate);
      case 'BoolExpr':
        return this.expression(body.args, inAggregate);
      case 'NullTest':
      case 'BooleanTest':
        return this.expression(body.arg, inAggregate);
      case 'CoalesceExpr':
      case 'MinMaxExpr':
        return this.expression(body.args, inAggregate);
      case 'CaseExpr':
        this.expression(body.arg, inAggregate);
        this.expression(body.args, inAggregate);
        return this.expression(body.defresult, inAggregate);
      case 'CaseWhen':
        this.expression(body.expr, inAggregate);
        return this.expression(body.result, inAggregate);
      case 'ResTarget':
        return this.expression(body.val, inAggregate);
      case 'SortBy':
        return this.expression(body.node, inAggregate);
      case 'FuncCall':
        return this.call(body, inAggregate);
      default:
        return no(`a ${kind}`);
    }
  }

  private operator(e: Node, inAggregate: boolean): void {
    const op = names(e.name)[0];
    // date OP literal: exact over a grain that starts on the literal's day, for >= and < only
    if (e.kind === 'AEXPR_OP' && (this.isDate(e.lexpr) || this.isDate(e.rexpr))) {
      const [dateLeft, other] = this.isDate(e.lexpr) ? [true, e.rexpr] : [false, e.lexpr];
      const text = literalDay(other);
      const facet = text === undefined ? undefined : alignedFacet(text);
      const lowerOrUpper = dateLeft ? op === '>=' || op === '<' : op === '<=' || op === '>';
      if (!facet || !lowerOrUpper) no('a comparison of date that truncated dates do not answer exactly');
      this.facets.add(facet!);
      return;
    }
    this.expression(e.lexpr, inAggregate);
    this.expression(e.rexpr, inAggregate);
  }

  private call(f: Node, inAggregate: boolean): void {
    const fname = names(f.funcname).at(-1)!.toLowerCase();
    const args = (f.args as unknown[]) ?? [];
    if (f.over) {
      // a window over the grouped rows is the same either way; a window counting rows is not
      if (f.agg_star || fname === 'count') no('count(*) as a window');
      const over = f.over as Node;
      if (over.refname) no('a named window');
      this.expression(args, inAggregate);
      this.expression(over.partitionClause, inAggregate);
      this.expression(over.orderClause, inAggregate);
      return;
    }
    if (isAggregate(fname)) {
      if (inAggregate) no('an aggregate inside an aggregate');
      this.aggregates++;
      if (f.agg_order || f.agg_within_group) no(`an ordered ${fname}()`);
      this.expression(f.agg_filter, true);
      if (fname === 'count' && f.agg_star) return this.countStar(f);
      if (fname === 'count' && f.agg_distinct) return this.expression(args, true);
      if (SAME_OVER_GROUPS.has(fname) && !f.agg_distinct) return this.expression(args, true);
      if ((fname === 'avg' || fname === 'sum') && !f.agg_distinct && !f.agg_filter && args.length === 1 && isInteger(args[0])) {
        this.expression(args, true);
        return this.weigh(fname, f);
      }
      return no(`${fname}() over incidents`);
    }
    // date parts
    if ((fname === 'extract' || fname === 'date_part' || fname === 'date_trunc') && args.length === 2 && this.isDate(args[1])) {
      const field = constText(args[0])?.toLowerCase() ?? '';
      const facet = (fname === 'date_trunc' ? TRUNC_FACET : FIELD_FACET)[field];
      if (!facet) no(`${fname} of ${field}`);
      this.facets.add(facet!);
      return;
    }
    if (fname === 'to_char' && this.isDate(args[0])) {
      const format = constText(args[1]) ?? '';
      // only calendar parts; hours and minutes are not kept by a truncated date
      if (!/^(?:FM|YYYY|YY|MM|Month|month|MONTH|Mon|mon|MON|DD|Day|day|DAY|Dy|dy|DY|ID|Q|[\s\-/.,:])*$/.test(format))
        no(`to_char(date, '${format}')`);
      // each part it shows: a day of the month, a weekday's name or number, a month, the year
      const parts = format.replace(/Day|day|DAY|Dy|dy|DY|ID/g, (p) => (this.facets.add('weekday'), ' '.repeat(p.length)));
      if (/DD/.test(parts)) this.facets.add('day');
      if (/MM|Mon|mon|MON|Q/.test(parts)) this.facets.add('month');
      this.facets.add('year'); // a rollup with a date (every grain but all time) keeps its year
      return;
    }
    for (const a of args) if (this.isDate(a)) no(`${fname} of date`);
    this.expression(args, inAggregate);
  }

  private weigh(fname: 'avg' | 'sum', f: Node): void {
    const at = f.location as number;
    const open = /^(?:avg|sum)\s*\(/i.exec(this.text.subarray(at, at + 20).toString('latin1'));
    if (!open) no(`a ${fname}() written unusually`);
    const end = closingParen(this.text, at + open![0].length - 1);
    const arg = this.text.subarray(at + open![0].length, end - 1).toString('utf8');
    const bare = (this.select.targetList as Node[]).some(
      (t) => !(t.ResTarget as Node).name && ((t.ResTarget as Node).val as Node).FuncCall === f,
    );
    this.weighted.push({ fname, at, end, arg, bare });
  }

  /**
   * count(*) -> sum(n). Where no row may be counted (no GROUP BY: an empty input; a FILTER: a group where none
   * matches) count(*) is 0 and sum(n) is NULL, so coalesce(sum(n), 0) there.
   */
  private countStar(f: Node): void {
    const at = f.location as number;
    const m = /^count\s*\(\s*\*\s*\)/i.exec(this.text.subarray(at, at + 40).toString('latin1'));
    if (!m) no('a count(*) written unusually');
    const end = at + m![0].length;
    const wrap = !this.select.groupClause || Boolean(f.agg_filter);
    let filterEnd: number | undefined;
    if (wrap && f.agg_filter) {
      const open = /^\s*filter\s*\(/i.exec(this.text.subarray(end, end + 40).toString('latin1'));
      if (!open) no('a FILTER written unusually');
      filterEnd = closingParen(this.text, end + open![0].length - 1);
    }
    this.counts.push({ at, end, wrap, filterEnd });
  }
}

/** An integer for avg and sum: a cast to a 2- or 4-byte integer (arrest::int), or a CASE whose results are whole numbers. */
function isInteger(n: unknown): boolean {
  const cast = (n as { TypeCast?: Node }).TypeCast;
  if (cast) return INTEGER_TYPES.has(names((cast.typeName as Node).names).at(-1) ?? '');
  const c = (n as { CaseExpr?: Node }).CaseExpr;
  if (!c) return false;
  const isWhole = (x: unknown) =>
    x === undefined || Boolean((x as { A_Const?: Node }).A_Const && 'ival' in (x as { A_Const: Node }).A_Const);
  return ((c.args as Node[]) ?? []).every((w) => isWhole((w.CaseWhen as Node).result)) && isWhole(c.defresult);
}

/** The byte after the ")" that closes the "(" at `open`, past strings, quoted names and comments. */
function closingParen(text: Buffer, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === 0x27 || c === 0x22) {
      for (i++; i < text.length && !(text[i] === c && text[i + 1] !== c); i++) if (text[i] === c) i++;
    } else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return no('an unbalanced parenthesis');
}

/** The name of a table reference at `at`: crimes, "crimes", public.crimes. */
function relationName(text: Buffer, at: number): number {
  const m = /^(?:(?:"public"|public)\s*\.\s*)?(?:"crimes"|crimes)\b/i.exec(text.subarray(at, at + 40).toString('latin1'));
  if (!m) no('the relation written unusually');
  return at + m![0].length;
}

const facetsHeld = (grain: RollupGrain, facets: Set<TimeFacet>) => [...facets].every((f) => GRAIN_FACETS[grain].includes(f));

function smallestHolding(b: Block): Rollup | undefined {
  return ROLLUPS.find(
    (r) => [...b.columns].every((c) => r.columns.includes(c)) && facetsHeld(r.grain, b.facets) && (!b.dayValue || r.grain === 'day'),
  );
}

/** Every SELECT in the tree (CTEs, subqueries, set operations), each once. */
function* selects(n: unknown): Generator<Node> {
  if (n === null || typeof n !== 'object') return;
  if (Array.isArray(n)) {
    for (const x of n) yield* selects(x);
    return;
  }
  for (const [k, v] of Object.entries(n as Node)) {
    if (k === 'SelectStmt') yield v as Node;
    yield* selects(v);
  }
}

const isTable = (n: unknown, name?: string): n is { RangeVar: Node } => {
  const rv = (n as { RangeVar?: Node } | undefined)?.RangeVar;
  return Boolean(rv && (!rv.schemaname || rv.schemaname === 'public') && (name === undefined || rv.relname === name));
};

/** A join of crimes to a lookup table on the lookup's key, USING (key) or ON one equality of the two keys. */
function lookupJoin(j: Node): CrimesFrom | undefined {
  if (j.isNatural || j.alias || (j.jointype !== 'JOIN_INNER' && j.jointype !== 'JOIN_LEFT')) return undefined;
  // a LEFT join keeps every incident only with crimes on its left
  const sides =
    j.jointype === 'JOIN_LEFT'
      ? [[j.larg, j.rarg]]
      : [
          [j.larg, j.rarg],
          [j.rarg, j.larg],
        ];
  for (const [c, l] of sides) {
    if (!isTable(c, 'crimes') || !isTable(l)) continue;
    const table = l.RangeVar.relname as string;
    const key = LOOKUP_KEYS[table];
    const columns = sqlAllowList().relations.get(table);
    if (!key || !columns) return undefined;
    const [crimesQ, lookupQ] = [qualifiersOf(c.RangeVar), qualifiersOf(l.RangeVar)];
    const using = names(j.usingClause);
    const keyRef = (n: unknown, q: Set<string>) => {
      const fields = names((n as { ColumnRef?: Node }).ColumnRef?.fields);
      return fields.length === 2 && fields[1] === key && q.has(fields[0]);
    };
    const on = (j.quals as { A_Expr?: Node } | undefined)?.A_Expr;
    const onKeys =
      on?.kind === 'AEXPR_OP' &&
      names(on.name).join() === '=' &&
      ((keyRef(on.lexpr, crimesQ) && keyRef(on.rexpr, lookupQ)) || (keyRef(on.lexpr, lookupQ) && keyRef(on.rexpr, crimesQ)));
    if ((using.length === 1 && using[0] === key && !j.quals) || (!using.length && onKeys))
      return { crimes: c.RangeVar, lookup: { qualifiers: lookupQ, columns, key } };
    return undefined;
  }
  return undefined;
}

/** The block's crimes relation when it reads crimes alone, or crimes joined to a lookup table on its key. */
function crimesFrom(s: Node): CrimesFrom | undefined {
  const from = s.fromClause as Node[] | undefined;
  if (!from || from.length !== 1) return undefined;
  if (isTable(from[0], 'crimes')) return { crimes: from[0].RangeVar };
  const join = from[0].JoinExpr as Node | undefined;
  return join ? lookupJoin(join) : undefined;
}

function navigateBlock(text: Buffer, s: Node, from: CrimesFrom): { rollup: Rollup; edits: Edit[] } | undefined {
  const outputs = new Set((s.targetList as Node[]).map((t) => (t.ResTarget as Node).name as string).filter(Boolean));
  const b = new Block(text, s, outputs, from);
  try {
    // DISTINCT over whole output rows is the same over groups as over incidents; DISTINCT ON picks a row
    const distinct = s.distinctClause as Node[] | undefined;
    const wholeDistinct = distinct?.length === 1 && Object.keys(distinct[0]).length === 0;
    if ((distinct && !wholeDistinct) || s.windowClause || s.intoClause || s.lockingClause) no('DISTINCT ON, WINDOW, INTO or locking');
    b.expression(s.targetList);
    b.expression(s.whereClause);
    b.expression(s.groupClause);
    if (s.havingClause) b.expression(s.havingClause);
    b.expression(s.sortClause);
    // groupings of ordinal positions and output names are read through the targets above
    // without aggregates a block lists incidents, unless it keeps each distinct row once (DISTINCT, GROUP BY)
    if (b.aggregates === 0 && !wholeDistinct && !s.groupClause) no('a row-level query: its rows are incidents');
    if (b.counts.length === 0 && b.weighted.length === 0 && b.columns.size === 0 && b.facets.size === 0) return undefined;
  } catch (error) {
    if (error instanceof NotNavigable) return undefined;
    throw error;
  }
  const rollup = smallestHolding(b);
  if (!rollup) return undefined;
  const edits: Edit[] = [];
  const relation = from.crimes;
  const at = relation.location as number;
  // beside a lookup table, the measure is read by the rollup's name in the block: its alias, or crimes
  const alias = (relation.alias as { aliasname?: string } | undefined)?.aliasname;
  const asCrimes = b.qualifiedByName || (Boolean(from.lookup) && !alias);
  edits.push({ at, end: relationName(text, at), text: asCrimes ? `${rollup.table} AS crimes` : rollup.table });
  const n = from.lookup ? `${alias ?? 'crimes'}.${ROLLUP_MEASURE.column}` : ROLLUP_MEASURE.column;
  const sum = `sum(${n})`;
  for (const w of b.weighted) {
    const weighed =
      w.fname === 'avg'
        ? `(sum((${w.arg})::numeric * ${n}) / nullif(sum(${n}) FILTER (WHERE (${w.arg}) IS NOT NULL), 0)::numeric)`
        : `sum((${w.arg}) * ${n}::int8)::int8`;
    edits.push({ at: w.at, end: w.end, text: weighed });
    if (w.bare && w.fname === 'avg') edits.push({ at: w.end, end: w.end, text: ' AS avg' });
  }
  for (const c of b.counts) {
    if (!c.wrap) edits.push({ at: c.at, end: c.end, text: sum });
    else if (c.filterEnd === undefined) edits.push({ at: c.at, end: c.end, text: `coalesce(${sum}, 0)` });
    else {
      edits.push({ at: c.at, end: c.end, text: `coalesce(${sum}` });
      edits.push({ at: c.filterEnd, end: c.filterEnd, text: ', 0)' });
    }
  }
  // a bare count(*) is named "count": its rewrite keeps the name
  for (const t of s.targetList as Node[]) {
    const r = t.ResTarget as Node;
    const f = (r.val as Node).FuncCall as Node | undefined;
    if (!r.name && f && f.agg_star && !f.over) {
      const c = b.counts.find((x) => x.at === f.location)!;
      const end = c.filterEnd ?? c.end;
      edits.push({ at: end, end, text: ' AS count' });
    }
  }
  return { rollup, edits };
}

/**
 * The statement moved onto rollups where it counts over crimes in a way a rollup holds; undefined when no
 * block of it could move (it runs on crimes as written). `sql` must be one statement the guard passed.
 */
export async function navigateAggregates(sql: string): Promise<Navigated | undefined> {
  const text = Buffer.from(sql, 'utf8');
  let tree: unknown;
  try {
    tree = await parseSql(sql);
  } catch {
    return undefined;
  }
  // a CTE named crimes is not the table
  if (/"ctename":"crimes"/.test(JSON.stringify(tree))) return undefined;
  const edits: Edit[] = [];
  const used: string[] = [];
  for (const s of selects(tree)) {
    const from = crimesFrom(s);
    if (!from) continue;
    const moved = navigateBlock(text, s, from);
    if (!moved) continue;
    edits.push(...moved.edits);
    used.push(moved.rollup.table);
  }
  if (!edits.length) return undefined;
  // applied from the end, so that each edit's byte offsets still hold; of two inserts at one place the later
  // made goes first, to end up after the other (", 0)" then " AS count")
  let out = text;
  const order = edits.map((e, i) => ({ ...e, i }));
  for (const e of order.sort((a, b) => b.at - a.at || b.end - a.end || b.i - a.i))
    out = Buffer.concat([out.subarray(0, e.at), Buffer.from(e.text, 'utf8'), out.subarray(e.end)]);
  const rollups = [...new Set(used)];
  return { sql: `-- answered from ${rollups.join(', ')} (the same counts as crimes, pre-aggregated)\n${out.toString('utf8')}`, rollups };
}
