// Compiles a factor short code into a function of the bars: checked once
// (known functions, argument counts, constant window lengths, and the
// protocol's no-look-ahead rule), then evaluated column-wise over Float64Arrays.
import { ExpressionError, parseExpression, type Field, type Node } from './parser.js';
import * as ops from './series-ops.js';
import type { Series } from './series-ops.js';

export type Bars = Record<Field, Series>;

export interface CompiledExpression {
  source: string;
  /** the fields the expression reads (for fetching only the needed columns) */
  fields: Field[];
  /**
   * The factor's values over `length` days. `memo`, shared by the expressions
   * evaluated on the same bars (a strategy's buy and sell conditions), computes
   * each distinct subexpression once: RSI(14) of a buy and a sell rule, both
   * sides of a cross. The values are the same either way; series are never
   * modified once computed.
   */
  evaluate(bars: Bars, length: number, memo?: Memo): Series;
}

/** Series already computed on one set of bars, by subexpression. */
export type Memo = Map<string, Series>;

interface FunctionSpec {
  /** allowed argument counts */
  arity: number[];
  /** positions of arguments that must be constant whole numbers, with their minimum */
  constants?: Record<number, number>;
  /** days back the first argument is shifted, given the constants (DELAY) */
  lag?: (constants: number[]) => number;
  run(args: Series[], constants: number[]): Series;
}

const window = (min: number, f: (x: Series, n: number) => Series): FunctionSpec => ({
  arity: [2],
  constants: { 1: min },
  run: ([x], [, n]) => f(x, n),
});

const FUNCTIONS: Record<string, FunctionSpec> = {
  DELAY: { arity: [2], constants: { 1: 0 }, lag: ([, n]) => n, run: ([x], [, n]) => ops.delay(x, n) },
  DELTA: { arity: [2], constants: { 1: 1 }, run: ([x], [, n]) => ops.map2(x, ops.delay(x, n), (a, b) => a - b) },
  SMA: {
    arity: [2, 3],
    constants: { 1: 1, 2: 1 },
    run: ([x], [, n, m]) => (m === undefined ? ops.mean(x, n) : ops.smaRecursive(x, n, m)),
  },
  MA: window(1, ops.mean),
  MEAN: window(1, ops.mean),
  EMA: window(1, ops.ema),
  STD: window(2, ops.std),
  VAR: window(2, ops.variance),
  SKEW: window(3, ops.skew),
  SUM: window(1, ops.sum),
  TSMAX: window(1, ops.tsMax),
  HHV: window(1, ops.tsMax),
  TSMIN: window(1, ops.tsMin),
  LLV: window(1, ops.tsMin),
  LINEARREG_SLOPE: window(2, ops.linearRegSlope),
  ABS: { arity: [1], run: ([x]) => ops.map1(x, Math.abs) },
  LOG: { arity: [1], run: ([x]) => ops.map1(x, (a) => (a > 0 ? Math.log(a) : NaN)) },
  SIGN: { arity: [1], run: ([x]) => ops.map1(x, (a) => Math.sign(a)) },
  SQRT: { arity: [1], run: ([x]) => ops.map1(x, (a) => (a >= 0 ? Math.sqrt(a) : NaN)) },
  CUMMAX: { arity: [1], run: ([x]) => ops.cumMax(x) },
  MAX: { arity: [2], run: ([a, b]) => ops.map2(a, b, Math.max) },
  MIN: { arity: [2], run: ([a, b]) => ops.map2(a, b, Math.min) },
};

const FUNCTION_NAMES = Object.keys(FUNCTIONS);

/** Fields that may be read for the current day t: only the open is known when we act. */
const KNOWN_AT_OPEN: ReadonlySet<Field> = new Set(['OPEN']);

const truthy = (v: number) => !Number.isNaN(v) && v !== 0;

function check(node: Node, lag: number, src: string, fields: Set<Field>): void {
  switch (node.kind) {
    case 'number':
      return;
    case 'field':
      fields.add(node.name);
      if (lag === 0 && !KNOWN_AT_OPEN.has(node.name)) {
        throw new ExpressionError(
          `look-ahead: ${node.name} of day t is not known at day t's open (use DELAY(${node.name},1); only OPEN may be read for day t)`,
          node.pos,
          src,
        );
      }
      return;
    case 'unary':
      return check(node.arg, lag, src, fields);
    case 'binary':
      check(node.left, lag, src, fields);
      return check(node.right, lag, src, fields);
    case 'ternary':
      check(node.cond, lag, src, fields);
      check(node.then, lag, src, fields);
      return check(node.else, lag, src, fields);
    case 'call': {
      const spec = FUNCTIONS[node.name];
      if (!spec) throw new ExpressionError(`unknown function "${node.name}" (known: ${FUNCTION_NAMES.join(', ')})`, node.pos, src);
      if (!spec.arity.includes(node.args.length)) {
        throw new ExpressionError(`${node.name} takes ${spec.arity.join(' or ')} arguments, not ${node.args.length}`, node.pos, src);
      }
      const constants = constantArgs(node, spec, src);
      node.args.forEach((arg, i) => {
        if (spec.constants?.[i] !== undefined) return;
        check(arg, i === 0 && spec.lag ? lag + spec.lag(constants) : lag, src, fields);
      });
      return;
    }
  }
}

function constantArgs(node: Extract<Node, { kind: 'call' }>, spec: FunctionSpec, src: string): number[] {
  return node.args.map((arg, i) => {
    const min = spec.constants?.[i];
    if (min === undefined) return NaN;
    if (arg.kind !== 'number' || !Number.isInteger(arg.value) || arg.value < min) {
      throw new ExpressionError(`argument ${i + 1} of ${node.name} must be a whole number of at least ${min}`, arg.pos, src);
    }
    return arg.value;
  });
}

/** A canonical text of a node: equal keys mean the same computation. */
function keyOf(node: Node, keys: Map<Node, string>): string {
  let key: string;
  switch (node.kind) {
    case 'number':
      key = `#${node.value}`;
      break;
    case 'field':
      key = node.name;
      break;
    case 'unary':
      key = `${node.op}(${keyOf(node.arg, keys)})`;
      break;
    case 'binary':
      key = `(${keyOf(node.left, keys)}${node.op}${keyOf(node.right, keys)})`;
      break;
    case 'ternary':
      key = `(${keyOf(node.cond, keys)}?${keyOf(node.then, keys)}:${keyOf(node.else, keys)})`;
      break;
    case 'call':
      key = `${node.name}(${node.args.map((a) => keyOf(a, keys)).join(',')})`;
      break;
  }
  keys.set(node, key);
  return key;
}

function evaluateNode(node: Node, bars: Bars, n: number, keys?: Map<Node, string>, memo?: Memo): Series {
  if (!memo || node.kind === 'field') return computeNode(node, bars, n, keys, memo);
  const key = keys!.get(node)!;
  let out = memo.get(key);
  if (!out) {
    out = computeNode(node, bars, n, keys, memo);
    memo.set(key, out);
  }
  return out;
}

function computeNode(node: Node, bars: Bars, n: number, keys?: Map<Node, string>, memo?: Memo): Series {
  const sub = (child: Node) => evaluateNode(child, bars, n, keys, memo);
  switch (node.kind) {
    case 'number':
      return new Float64Array(n).fill(node.value);
    case 'field':
      return bars[node.name];
    case 'unary': {
      const x = sub(node.arg);
      return node.op === '-' ? ops.map1(x, (a) => -a) : ops.map1(x, (a) => (a === 0 ? 1 : 0));
    }
    case 'binary': {
      const a = sub(node.left);
      const b = sub(node.right);
      return node.op === '/' ? ops.divide(a, b) : ops.BINARY_OPS[node.op](a, b);
    }
    case 'ternary': {
      const c = sub(node.cond);
      const t = sub(node.then);
      const e = sub(node.else);
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = Number.isNaN(c[i]) ? NaN : c[i] !== 0 ? t[i] : e[i];
      return out;
    }
    case 'call': {
      const spec = FUNCTIONS[node.name];
      const constants = node.args.map((a, i) => (spec.constants?.[i] !== undefined && a.kind === 'number' ? a.value : NaN));
      const args = node.args.map((a, i) => (spec.constants?.[i] !== undefined ? new Float64Array(0) : sub(a)));
      return spec.run(args, constants);
    }
  }
  throw new Error(`unhandled node ${(node as Node).kind}`);
}

export function compileExpression(source: string): CompiledExpression {
  const ast = parseExpression(source);
  const fields = new Set<Field>();
  check(ast, 0, source, fields);
  let keys: Map<Node, string> | undefined;
  return {
    source,
    fields: [...fields],
    evaluate: (bars, length, memo) => {
      if (memo && !keys) keyOf(ast, (keys = new Map()));
      return evaluateNode(ast, bars, length, keys, memo);
    },
  };
}

/** A signal from a factor value: true where defined and non-zero. Undefined gives false. */
export function toSignal(values: Series): boolean[] {
  const out = new Array<boolean>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = truthy(values[i]);
  return out;
}
