// Parser for factor short codes, the operator language of BACKTEST_PROTOCOL.md:
//   (DELAY(CLOSE,1)-SMA(DELAY(CLOSE,1),5))/SMA(DELAY(CLOSE,1),5)*100
// Names are case-insensitive; `&&`/`AND`, `||`/`OR`, `!`/`NOT`, `=`/`==`.
// Every error names the character position (1-based) where it happened.

export type Node =
  | { kind: 'number'; value: number; pos: number }
  | { kind: 'field'; name: Field; pos: number }
  | { kind: 'call'; name: string; args: Node[]; pos: number }
  | { kind: 'unary'; op: '-' | '!'; arg: Node; pos: number }
  | { kind: 'binary'; op: BinaryOp; left: Node; right: Node; pos: number }
  | { kind: 'ternary'; cond: Node; then: Node; else: Node; pos: number };

type BinaryOp = '+' | '-' | '*' | '/' | '>' | '<' | '>=' | '<=' | '==' | '!=' | '&&' | '||';

/** Columns an expression can read, with their aliases. */
const FIELDS = ['OPEN', 'CLOSE', 'HIGH', 'LOW', 'VOLUME', 'AMOUNT', 'PERCENTAGE_CHANGE'] as const;
export type Field = (typeof FIELDS)[number];
const FIELD_ALIASES: Record<string, Field> = { VOL: 'VOLUME' };

export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly position: number,
    readonly source: string,
  ) {
    super(`${message} at position ${position}: ${source.slice(0, position - 1)} >>>${source.slice(position - 1)}`);
    this.name = 'ExpressionError';
  }
}

type Token =
  | { type: 'num'; value: number; pos: number }
  | { type: 'ident'; value: string; pos: number }
  | { type: 'op'; value: string; pos: number }
  | { type: 'end'; pos: number };

const OPERATORS = ['>=', '<=', '==', '!=', '&&', '||', '+', '-', '*', '/', '>', '<', '=', '!', '(', ')', ',', '?', ':', '&', '|'];

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const pos = i + 1;
    const num = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      tokens.push({ type: 'num', value: Number(num[0]), pos });
      i += num[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (ident) {
      tokens.push({ type: 'ident', value: ident[0].toUpperCase(), pos });
      i += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new ExpressionError(`unexpected character "${ch}"`, pos, src);
    // single & and | are accepted as the logical operators too
    tokens.push({ type: 'op', value: op === '=' ? '==' : op === '&' ? '&&' : op === '|' ? '||' : op, pos });
    i += op.length;
  }
  tokens.push({ type: 'end', pos: src.length + 1 });
  return tokens;
}

const WORD_OPERATORS: Record<string, string> = { AND: '&&', OR: '||', NOT: '!' };

export function parseExpression(src: string): Node {
  if (!src.trim()) throw new ExpressionError('empty expression', 1, src);
  const tokens = tokenize(src).map((t) =>
    t.type === 'ident' && WORD_OPERATORS[t.value] ? ({ type: 'op', value: WORD_OPERATORS[t.value], pos: t.pos } as Token) : t,
  );
  let k = 0;
  const peek = () => tokens[k];
  const isOp = (v: string) => {
    const t = peek();
    return t.type === 'op' && t.value === v;
  };
  const expect = (v: string) => {
    const t = peek();
    if (!(t.type === 'op' && t.value === v)) {
      throw new ExpressionError(`expected "${v}" but found ${describe(t)}`, t.pos, src);
    }
    k++;
  };

  const ternary = (): Node => {
    const cond = or();
    if (!isOp('?')) return cond;
    const pos = peek().pos;
    k++;
    const then = ternary();
    expect(':');
    return { kind: 'ternary', cond, then, else: ternary(), pos };
  };
  const binaryLevel = (ops: string[], next: () => Node) => (): Node => {
    let left = next();
    for (;;) {
      const t = peek();
      if (t.type !== 'op' || !ops.includes(t.value)) return left;
      k++;
      left = { kind: 'binary', op: t.value as BinaryOp, left, right: next(), pos: t.pos };
    }
  };
  const unary = (): Node => {
    const t = peek();
    if (t.type === 'op' && (t.value === '-' || t.value === '!')) {
      k++;
      return { kind: 'unary', op: t.value, arg: unary(), pos: t.pos };
    }
    if (t.type === 'op' && t.value === '+') {
      k++;
      return unary();
    }
    return primary();
  };
  const mul = binaryLevel(['*', '/'], unary);
  const add = binaryLevel(['+', '-'], mul);
  const cmp = binaryLevel(['>', '<', '>=', '<=', '==', '!='], add);
  const and = binaryLevel(['&&'], cmp);
  const or = binaryLevel(['||'], and);

  function primary(): Node {
    const t = peek();
    if (t.type === 'num') {
      k++;
      return { kind: 'number', value: t.value, pos: t.pos };
    }
    if (t.type === 'op' && t.value === '(') {
      k++;
      const inner = ternary();
      expect(')');
      return inner;
    }
    if (t.type === 'ident') {
      k++;
      if (isOp('(')) {
        k++;
        const args: Node[] = [];
        if (!isOp(')')) {
          args.push(ternary());
          while (isOp(',')) {
            k++;
            args.push(ternary());
          }
        }
        expect(')');
        return { kind: 'call', name: t.value, args, pos: t.pos };
      }
      const field = FIELD_ALIASES[t.value] ?? (FIELDS as readonly string[]).find((f) => f === t.value);
      if (!field) throw new ExpressionError(`unknown field "${t.value}" (fields: ${FIELDS.join(', ')}, VOL)`, t.pos, src);
      return { kind: 'field', name: field as Field, pos: t.pos };
    }
    throw new ExpressionError(`expected a number, field or function but found ${describe(t)}`, t.pos, src);
  }

  const node = ternary();
  if (peek().type !== 'end') throw new ExpressionError(`unexpected ${describe(peek())}`, peek().pos, src);
  return node;
}

function describe(t: Token): string {
  if (t.type === 'end') return 'the end of the expression';
  return `"${t.value}"`;
}
