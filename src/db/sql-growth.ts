// How long a value model-written SQL can build, judged from its parse tree
// before anything runs (EXPLAIN is too late: the planner folds functions of
// constants, so EXPLAIN of `length(replace(replace(… 'aaaaaaaaaa' …)))` runs
// the bomb itself). Eight nested replace(…, 'a', 'aaaaaaaaaa') took one reader
// backend to 2 GB; neither work_mem nor temp_file_limit bounds a single value.
//
// Every expression gets an upper bound on the bytes of one value it can make:
// a column is COLUMN_BYTES (the data's text columns are short), a constant its
// own length; `||`, concat and arrays add their parts; replace multiplies by
// its replacement's length over what it replaces, regexp_replace by one more
// than its replacement's length (a pattern can match at every character),
// repeat by its count, lpad/rpad give their length. Bounds flow column by
// column through CTEs, subqueries and set operations, and a recursive WITH
// whose text feeds itself more than once a round (doubling) is refused. A collecting
// aggregate (string_agg, array_agg, ARRAY(subquery)) holds one element per
// row it reads: its element is bounded tighter, since the EXPLAIN budget
// (explain-budget.ts) admits a million of them. Additive growth stays linear in
// the query's own length, so `concat(a, ' ', b)` and long `||` chains pass;
// replace of replace composes to exponential growth and is what this bounds.

/** the longest value a column of the data tables is assumed to hold */
const COLUMN_BYTES = 256;
/** the most bytes one value may reach */
const MAX_VALUE_BYTES = 1024 * 1024;
/** the most bytes each row may add to a collected list (string_agg, array_agg, ARRAY(subquery)) */
const MAX_ELEMENT_BYTES = 1024;

type Json = Record<string, unknown>;

interface Bound {
  /** bytes of one value */
  value: number;
  /** bytes each row adds to a list collected from many rows (0: nothing collected) */
  element: number;
  /** the calls that lengthen it, outermost first, for the refusal's sentence */
  via: string[];
}

const ONE: Bound = { value: 1, element: 0, via: [] };
const COLUMN: Bound = { value: COLUMN_BYTES, element: 0, via: [] };
const COLLECTING = new Set(['string_agg', 'array_agg', 'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg', 'xmlagg']);

class GrowthRefusal extends Error {}

const str = (n: unknown): string => ((n as Json | undefined)?.String as { sval?: string } | undefined)?.sval ?? '';
const names = (list: unknown): string[] => (Array.isArray(list) ? list.map(str) : []);
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** The literal a node is, through casts and collations: a string, a number, or undefined when not a constant. */
function literal(node: unknown): string | number | undefined {
  const n = node as Json | undefined;
  if (!n) return undefined;
  if (n.TypeCast) return literal((n.TypeCast as Json).arg);
  if (n.CollateClause) return literal((n.CollateClause as Json).arg);
  const c = n.A_Const as Json | undefined;
  if (!c) return undefined;
  if (c.sval) return String((c.sval as Json).sval ?? '');
  if (c.ival) return Number((c.ival as Json).ival ?? 0);
  if (c.fval) return Number((c.fval as Json).fval);
  return c.isnull ? '' : undefined;
}

/** A constant text's length in bytes; `fallback` when the argument is not a constant text. */
const textBytes = (node: unknown, fallback: number): number => {
  const value = literal(node);
  return typeof value === 'string' ? utf8(value) : fallback;
};

const about = (n: number) =>
  !Number.isFinite(n)
    ? 'any size'
    : n >= 1024 ** 4
      ? 'more than a terabyte'
      : n >= 1024 ** 3
        ? `${(n / 1024 ** 3).toFixed(1)} GB`
        : n >= 1024 ** 2
          ? `${(n / 1024 ** 2).toFixed(1)} MB`
          : n >= 1024
            ? `${(n / 1024).toFixed(1)} KB`
            : `${Math.round(n)} bytes`;

/** The larger of some bounds, naming the calls of the one that grew most. */
const max = (bounds: Bound[]): Bound => {
  if (bounds.length === 0) return ONE;
  const value = Math.max(...bounds.map((b) => b.value));
  const element = Math.max(...bounds.map((b) => b.element));
  const grown = [...bounds].sort((a, b) => Math.max(b.value, b.element) - Math.max(a.value, a.element))[0];
  return { value, element, via: grown.via };
};

/** Parts put side by side (`||`, concat, ARRAY[…]): their lengths add. */
const sum = (name: string, bounds: Bound[]): Bound => {
  if (bounds.length === 0) return ONE;
  const grown = bounds.filter((b) => b.via.length).sort((a, b) => Math.max(b.value, b.element) - Math.max(a.value, a.element))[0];
  return {
    value: bounds.reduce((t, b) => t + b.value, 0),
    element: bounds.reduce((t, b) => t + b.element, 0),
    via: [name, ...(grown?.via ?? [])],
  };
};

/** A relation's columns in order (a CTE, a subquery, a set operation): a name PostgreSQL gives it and its bound. */
interface Rel {
  columns: { name: string; bound: Bound }[];
  /** the largest of them, and what a column not named here (a table's, or behind a `*`) may hold */
  all: Bound;
  /** false when a `*` made the order unknown: a rename by position then gives every column `all` */
  ordered: boolean;
}

/** What an expression's column references read: each range's named columns, and the largest of all. */
interface Input {
  all: Bound;
  ranges: Map<string, Map<string, Bound>>;
}

const TABLE: Rel = { columns: [], all: COLUMN, ordered: false };

/** Results that are numbers, booleans or dates, whatever their arguments: a value of a few bytes. */
const SMALL = new Set([
  ...['length', 'char_length', 'character_length', 'octet_length', 'position', 'strpos', 'regexp_count', 'regexp_like', 'starts_with'],
  ...['array_length', 'cardinality', 'array_position', 'count', 'sum', 'avg', 'stddev', 'stddev_pop', 'stddev_samp', 'variance'],
  ...['var_pop', 'var_samp', 'corr', 'covar_pop', 'covar_samp', 'regr_slope', 'regr_intercept', 'regr_r2', 'regr_count', 'regr_avgx'],
  ...['regr_avgy', 'bool_and', 'bool_or', 'every', 'grouping', 'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile'],
  ...['percentile_cont', 'date_part', 'extract', 'date_trunc', 'make_date', 'make_time', 'make_timestamp', 'make_interval', 'date_bin'],
  ...['age', 'now', 'to_date', 'to_timestamp', 'to_number', 'width_bucket', 'num_nulls', 'num_nonnulls', 'isfinite', 'overlaps'],
]);
const SMALL_BOUND: Bound = { value: 8, element: 0, via: [] };

/** The name PostgreSQL gives a target without AS: the column's, the function's, else ?column?. */
function targetName(val: Json | undefined): string {
  if (!val) return '?column?';
  if (val.ColumnRef) return str((((val.ColumnRef as Json).fields as Json[]) ?? []).at(-1)) || '?column?';
  if (val.FuncCall) return names((val.FuncCall as Json).funcname).at(-1) ?? '?column?';
  if (val.TypeCast) return targetName((val.TypeCast as Json).arg as Json);
  return '?column?';
}

const relMax = (rels: Rel[]): Rel => {
  const [first, ...rest] = rels;
  if (!first) return { columns: [], all: ONE, ordered: true };
  return {
    columns: first.columns.map((c, i) => ({ name: c.name, bound: max([c.bound, ...rest.map((r) => r.columns[i]?.bound ?? r.all)]) })),
    all: max(rels.map((r) => r.all)),
    ordered: rels.every((r) => r.ordered),
  };
};

/** A relation seen under an alias with column names: renamed by position. */
function renamed(rel: Rel, names: string[]): Rel {
  if (names.length === 0) return rel;
  const columns = names.map((name, i) => ({ name, bound: rel.ordered ? (rel.columns[i]?.bound ?? rel.all) : rel.all }));
  return { columns: [...columns, ...(rel.ordered ? rel.columns.slice(names.length) : [])], all: rel.all, ordered: rel.ordered };
}

const byName = (rel: Rel) => new Map(rel.columns.map((c) => [c.name, c.bound]));

class Growth {
  /** while a recursive CTE is measured at made-up sizes, nothing is refused */
  private probing = false;

  /** The bounds of what a SELECT outputs (`outer`: what its correlated references may read), checking every expression in it. */
  select(s: Json, ctes: ReadonlyMap<string, Rel>, outer: Input): Rel {
    const scope = new Map(ctes);
    const withClause = s.withClause as { ctes?: Json[]; recursive?: boolean } | undefined;
    for (const c of withClause?.ctes ?? []) {
      const cte = c.CommonTableExpr as Json;
      const name = String(cte.ctename);
      const body = (cte.ctequery as Json).SelectStmt as Json | undefined;
      if (!body) continue;
      const aliases = names(cte.aliascolnames);
      const rel =
        withClause?.recursive && body.larg && body.rarg
          ? this.recursive(name, aliases, body, scope, outer)
          : renamed(this.select(body, scope, outer), aliases);
      scope.set(name, rel);
    }
    if (s.larg || s.rarg) return relMax([s.larg, s.rarg].filter(Boolean).map((arm) => this.select(arm as Json, scope, outer)));
    if (Array.isArray(s.valuesLists)) {
      const rows = (s.valuesLists as Json[]).map((row) => ((row.List as Json | undefined)?.items as Json[] | undefined) ?? []);
      const width = Math.max(0, ...rows.map((r) => r.length));
      const columns = Array.from({ length: width }, (_, i) => ({
        name: `column${i + 1}`,
        bound: max(rows.map((r) => this.expr(r[i], outer, scope))),
      }));
      return { columns, all: max(columns.map((c) => c.bound)), ordered: true };
    }
    // a LATERAL item reads the items before it
    let input: Input = outer;
    for (const item of (s.fromClause as Json[] | undefined) ?? []) {
      const seen = this.from(item, scope, input);
      input = {
        all: max([input.all, ...[...seen.values()].map((r) => r.all)]),
        ranges: new Map([...input.ranges, ...[...seen].map(([n, r]) => [n, byName(r)] as const)]),
      };
    }
    for (const key of [
      'whereClause',
      'havingClause',
      'groupClause',
      'sortClause',
      'windowClause',
      'distinctClause',
      'limitCount',
      'limitOffset',
    ]) {
      if (s[key]) this.expr(s[key], input, scope);
    }
    const columns: Rel['columns'] = [];
    let ordered = true;
    for (const t of (s.targetList as Json[] | undefined) ?? []) {
      const r = t.ResTarget as Json;
      const val = r.val as Json | undefined;
      const star = val?.ColumnRef && ((val.ColumnRef as Json).fields as Json[]).at(-1)?.A_Star;
      const bound = this.expr(val, input, scope);
      if (star) ordered = false;
      else columns.push({ name: typeof r.name === 'string' ? r.name : targetName(val), bound });
      if (star) columns.push({ name: '*', bound });
    }
    return { columns, all: max(columns.map((c) => c.bound)), ordered };
  }

  /**
   * A recursive CTE: each column of its recursive arm is measured against each column of the CTE's previous round
   * (how many times that column's length goes into it). Lengths that grow faster than linearly from round to round
   * (`s || s`; `a || b` and `b || a` feeding each other; a replace of itself) double within a few dozen rounds.
   */
  private recursive(name: string, aliases: string[], body: Json, scope: Map<string, Rel>, outer: Input): Rel {
    const start = renamed(this.select(body.larg as Json, scope, outer), aliases);
    const n = Math.max(1, start.columns.length);
    const probe = 1024 ** 3;
    const round = (rel: Rel) => renamed(this.select(body.rarg as Json, new Map(scope).set(name, rel), outer), aliases);
    const at = (column: number, value: number): number[] => {
      const was = this.probing;
      this.probing = true;
      try {
        const grown = (b: Bound) => ({ ...b, value });
        const rel: Rel = start.columns.length
          ? { ...start, columns: start.columns.map((c, i) => (i === column ? { ...c, bound: grown(c.bound) } : c)) }
          : { ...start, all: grown(start.all) };
        const out = round(rel);
        return out.columns.length ? Array.from({ length: n }, (_, i) => (out.columns[i]?.bound ?? out.all).value) : [out.all.value];
      } finally {
        this.probing = was;
      }
    };
    // weight[i][j]: how many times column j's length goes into column i's next
    const weight = Array.from({ length: n }, () => Array<number>(n).fill(0));
    for (let j = 0; j < n; j++) {
      const low = at(j, probe);
      const high = at(j, 2 * probe);
      for (let i = 0; i < n; i++) weight[i][j] = Math.round(((high[i] ?? 0) - (low[i] ?? 0)) / probe);
    }
    const doubling = exponential(weight);
    if (doubling) {
      const fed = doubling.map((j) => start.columns[j]?.name).filter(Boolean);
      throw new GrowthRefusal(
        `The query's recursive WITH ${name} builds each round's text from the previous round's more than once${fed.length ? ` (${fed.join(', ')})` : ''}, so it doubles every round until it fills the server's memory: use the previous round's value at most once.`,
      );
    }
    return relMax([start, round(start)]);
  }

  /** The ranges a FROM item binds (its alias or name -> its columns). */
  private from(node: Json, scope: ReadonlyMap<string, Rel>, outer: Input): Map<string, Rel> {
    if (node.RangeVar) {
      const v = node.RangeVar as Json;
      const alias = v.alias as Json | undefined;
      const rel = String(v.relname);
      return new Map([[String(alias?.aliasname ?? rel), renamed(scope.get(rel) ?? TABLE, names(alias?.colnames))]]);
    }
    if (node.RangeSubselect) {
      const v = node.RangeSubselect as Json;
      const alias = v.alias as Json | undefined;
      const rel = renamed(this.select((v.subquery as Json).SelectStmt as Json, scope, outer), names(alias?.colnames));
      return new Map([[String(alias?.aliasname ?? ''), rel]]);
    }
    if (node.JoinExpr) {
      const j = node.JoinExpr as Json;
      const left = this.from(j.larg as Json, scope, outer);
      const leftInput = { all: max([outer.all, ...[...left.values()].map((r) => r.all)]), ranges: outer.ranges };
      const both = new Map([...left, ...this.from(j.rarg as Json, scope, leftInput)]);
      const all = max([...both.values()].map((r) => r.all));
      if (j.quals)
        this.expr(j.quals, { all, ranges: new Map([...outer.ranges, ...[...both].map(([n, r]) => [n, byName(r)] as const)]) }, scope);
      const alias = (j.alias as Json | undefined)?.aliasname;
      if (alias) both.set(String(alias), { columns: [...both.values()].flatMap((r) => r.columns), all, ordered: false });
      return both;
    }
    if (node.RangeFunction) {
      const v = node.RangeFunction as Json;
      const alias = v.alias as Json | undefined;
      const bound = this.expr(v.functions, outer, scope);
      const cols = names(alias?.colnames);
      const label = String(alias?.aliasname ?? '');
      return new Map([[label, { columns: (cols.length ? cols : [label]).map((c) => ({ name: c, bound })), all: bound, ordered: true }]]);
    }
    const bound = this.expr(node, outer, scope);
    return new Map([['', { columns: [], all: bound, ordered: false }]]);
  }

  /** The bound of an expression (a list: the largest of its items) whose column references read `input`. */
  expr(node: unknown, input: Input, scope: ReadonlyMap<string, Rel>): Bound {
    if (Array.isArray(node)) return max(node.map((n) => this.expr(n, input, scope)));
    if (!node || typeof node !== 'object') return ONE;
    const entries = Object.entries(node as Json);
    if (entries.length !== 1 || !/^[A-Z]/.test(entries[0][0])) return max(entries.map(([, v]) => this.expr(v, input, scope)));
    const [type, v] = entries[0] as [string, Json];
    return this.check(this.node(type, v, input, scope));
  }

  private node(type: string, v: Json, input: Input, scope: ReadonlyMap<string, Rel>): Bound {
    const e = (n: unknown) => this.expr(n, input, scope);
    switch (type) {
      case 'A_Const':
        return { value: Math.max(1, utf8(String(literal({ A_Const: v }) ?? ''))), element: 0, via: [] };
      case 'ColumnRef':
        return this.column(v, input);
      case 'A_Star':
        return input.all;
      case 'SelectStmt':
        return this.select(v, scope, input).all;
      case 'SubLink': {
        if (v.testexpr) e(v.testexpr);
        const inner = this.select((v.subselect as Json).SelectStmt as Json, scope, input).all;
        if (v.subLinkType === 'ARRAY_SUBLINK') {
          return { value: 0, element: Math.max(inner.value, inner.element), via: ['ARRAY(SELECT …)', ...inner.via] };
        }
        return v.subLinkType === 'EXPR_SUBLINK' ? inner : ONE;
      }
      case 'A_Expr': {
        const sides = [v.lexpr, v.rexpr].filter(Boolean).map(e);
        const op = names(v.name).at(-1) ?? '';
        if (op === '||' && v.kind === 'AEXPR_OP') return sum('||', sides);
        // a comparison, a match or a test is true or false
        return v.kind !== 'AEXPR_OP' || /^(=|<>|!=|<|>|<=|>=|~~\*?|!~~\*?|!?~\*?)$/.test(op) ? SMALL_BOUND : max(sides);
      }
      case 'A_ArrayExpr':
        return sum('ARRAY[…]', ((v.elements as Json[] | undefined) ?? []).map(e));
      case 'RowExpr':
        return sum('ROW(…)', ((v.args as Json[] | undefined) ?? []).map(e));
      case 'A_Indirection': {
        // one element (or a slice) of an array, collected or not
        const inner = e(v.arg);
        e(v.indirection);
        return { value: Math.max(inner.value, inner.element), element: 0, via: inner.via };
      }
      case 'FuncCall':
        return this.call(v, input, scope);
      case 'NullTest':
      case 'BooleanTest':
      case 'BoolExpr':
        e(Object.values(v));
        return ONE;
      default:
        return e(Object.values(v));
    }
  }

  private call(v: Json, input: Input, scope: ReadonlyMap<string, Rel>): Bound {
    const e = (n: unknown) => this.expr(n, input, scope);
    const name = (names(v.funcname).at(-1) ?? '').toLowerCase();
    const raw = (v.args as Json[] | undefined) ?? [];
    const args = raw.map(e);
    for (const k of ['agg_order', 'agg_filter', 'over']) if (v[k]) e(v[k]);
    const call = `${name}()`;
    const [first = ONE] = args;
    /** `first` times a factor: its value and each element it collects */
    const times = (factor: number): Bound =>
      factor <= 1 ? first : { value: first.value * factor, element: first.element * factor, via: [call, ...first.via] };
    switch (name) {
      case 'replace': {
        // each occurrence of `from` becomes `to` (an empty `from` changes nothing)
        const to = args[2] ?? ONE;
        const from = textBytes(raw[1], 1);
        if (to.element) return times(Infinity);
        return from === 0 ? first : times(textBytes(raw[2], to.value) / from);
      }
      case 'regexp_replace': {
        // a pattern can match the empty string at every character, and \1 or \& copies a match: at most one more byte
        // than the replacement per byte; without 'g' (or a count) only the first match is replaced
        const to = args[2] ?? ONE;
        if (to.element) return times(Infinity);
        const toText = literal(raw[2]);
        const flags = literal(raw[3]);
        const once = raw.length === 3 || (raw.length === 4 && typeof flags === 'string' && !flags.includes('g'));
        if (once && typeof toText === 'string') {
          const copies = (toText.match(/\\[0-9&]/g) ?? []).length;
          const grown = times(1 + copies);
          return utf8(toText) ? { ...grown, value: grown.value + utf8(toText), via: [call, ...first.via] } : grown;
        }
        const bytes = textBytes(raw[2], to.value);
        return bytes ? times(1 + bytes) : first;
      }
      case 'repeat': {
        const count = literal(raw[1]);
        return times(typeof count === 'number' ? count : Infinity);
      }
      case 'lpad':
      case 'rpad': {
        // the result is `length` characters, at most 4 bytes each
        const length = literal(raw[1]);
        return times(typeof length === 'number' ? (4 * length) / Math.max(1, first.value) : Infinity);
      }
      case 'format':
        // a width (`%1000000000s`) or a repeated `%1$s` grows it by a factor nothing here can see
        return times(Infinity);
      case 'translate': {
        // characters are replaced or dropped, never added: a byte grows to at most the widest replacement character
        const to = literal(raw[2]);
        const widest = typeof to === 'string' ? Math.max(1, ...[...to].map(utf8)) : 4;
        return times(widest);
      }
      case 'concat':
      case 'overlay':
        return sum(call, args);
      case 'concat_ws': {
        const [sep = ONE, ...parts] = args;
        const joined = sum(call, parts);
        return { ...joined, value: joined.value + textBytes(raw[0], sep.value) * Math.max(0, parts.length - 1) };
      }
      case 'array_to_string': {
        // a separator after each element: an element collected from a row gains one, a listed array's at most one a byte
        const sep = textBytes(raw[1], (args[1] ?? ONE).value);
        if (!sep) return first;
        return { value: first.value * (1 + sep), element: first.element ? first.element + sep : 0, via: [call, ...first.via] };
      }
    }
    if (SMALL.has(name)) return SMALL_BOUND;
    if (COLLECTING.has(name)) {
      // one element per row collected: the value (or the largest element it holds) and the separator
      const sep = raw.length > 1 ? textBytes(raw[1], (args[1] ?? ONE).value) : 0;
      return { value: 0, element: Math.max(first.value, first.element) + sep, via: [v.over ? `${call} OVER (…)` : call, ...first.via] };
    }
    return max(args);
  }

  /** `a.b` reads range a's column b; `b` the column b of whichever range has one; otherwise (a table's column) `all`. */
  private column(ref: Json, input: Input): Bound {
    const fields = (ref.fields as Json[]) ?? [];
    if (fields.at(-1)?.A_Star) {
      const range = fields.length > 1 ? input.ranges.get(str(fields.at(-2))) : undefined;
      return range ? max([...range.values()]) : input.all;
    }
    const column = str(fields.at(-1));
    if (fields.length > 1) return input.ranges.get(str(fields.at(-2)))?.get(column) ?? input.all;
    const found = [...input.ranges.values()].map((r) => r.get(column)).filter((b): b is Bound => b !== undefined);
    return found.length ? max(found) : input.all;
  }

  /** the largest value and element over the bounds, with the calls that made them */
  worst: { value?: Bound; element?: Bound } = {};

  private check(b: Bound): Bound {
    if (this.probing) return b;
    if (b.value > MAX_VALUE_BYTES && b.value >= (this.worst.value?.value ?? 0)) this.worst.value = b;
    if (b.element > MAX_ELEMENT_BYTES && b.element >= (this.worst.element?.element ?? 0)) this.worst.element = b;
    return b;
  }

  /** The refusal's sentence, if a bound was passed. */
  problem(): string | undefined {
    const { value, element } = this.worst;
    if (value) {
      return `The query lengthens text too far: ${calls(value.via)} could make a single value of ${about(value.value)} (at most ${about(MAX_VALUE_BYTES)}). Lengthen text less, or count instead.`;
    }
    if (element) {
      return `The query collects lengthened text: ${calls(element.via)} could add ${about(element.element)} for every row it collects (at most ${about(MAX_ELEMENT_BYTES)}). Collect the plain column, or count instead.`;
    }
    return undefined;
  }
}

/** "9 replace() calls nested in each other", or "string_agg() of replace()". */
function calls(via: string[]): string {
  if (via.length === 0) return 'it';
  if (via.length > 2 && via.every((c) => c === via[0])) return `${via.length} ${via[0]} calls nested in each other`;
  return via.length > 4 ? `${via.slice(0, 4).join(' of ')} of …` : via.join(' of ');
}

/** Why a parsed SELECT (a SelectStmt node of libpg-query's tree) could build a value too big to hold, or undefined. */
export function stringGrowthProblem(select: Json): string | undefined {
  const growth = new Growth();
  try {
    growth.select(select, new Map(), { all: COLUMN, ranges: new Map() });
  } catch (error) {
    if (error instanceof GrowthRefusal) return error.message;
    throw error;
  }
  return growth.problem();
}

/**
 * The columns whose lengths, feeding each other round by round (weight[i][j]: how many times column j's goes into column i's)
 * grow exponentially (undefined when none do): some cycle of columns is not a single loop of weight-1 steps (a loop of weight 2 doubles; two
 * loops through one column add up like Fibonacci's numbers). A single loop of 1s adds a constant a round: linear.
 */
export function exponential(weight: number[][]): number[] | undefined {
  const n = weight.length;
  const reach = weight.map((row) => row.map((w) => w > 0));
  for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) reach[i][j] ||= reach[i][k] && reach[k][j];
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (seen.has(i) || !reach[i][i]) continue;
    const component = [...Array(n).keys()].filter((j) => j === i || (reach[i][j] && reach[j][i]));
    component.forEach((j) => seen.add(j));
    let edges = 0;
    for (const a of component)
      for (const b of component) {
        if (weight[a][b] > 1) return component;
        if (weight[a][b] > 0) edges++;
      }
    if (edges > component.length) return component;
  }
  return undefined;
}
