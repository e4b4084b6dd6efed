// The words inside a model's SQL that a person reads in the SQL shown with
// the answer: column and table aliases, text values and comments. They pass
// the one inertness check like any model text, so a query cannot carry a
// phishing link or an instruction into the thread as `AS "Call 312-555-0199"`,
// a string literal or a /* comment */.
import { parseSql } from './parse-sql.js';
import { inertProblem } from '../core/inert-text.js';

type Json = Record<string, unknown>;

/** Aliases and text values of a parse tree. */
function wordsOf(node: unknown, out: string[]): string[] {
  if (Array.isArray(node)) {
    for (const child of node) wordsOf(child, out);
  } else if (node && typeof node === 'object') {
    const o = node as Json;
    const target = o.ResTarget as { name?: string } | undefined;
    if (target?.name) out.push(target.name);
    // an alias is a field of its range (RangeVar.alias, RangeSubselect.alias), not a node of its own
    if (typeof o.aliasname === 'string') out.push(o.aliasname);
    const text = (o.A_Const as { sval?: { sval?: string } } | undefined)?.sval?.sval;
    if (text) out.push(text);
    const cte = o.CommonTableExpr as { ctename?: string } | undefined;
    if (cte?.ctename) out.push(cte.ctename);
    for (const value of Object.values(o)) wordsOf(value, out);
  }
  return out;
}

/** The comments of a query, found outside its string literals and quoted names. */
const commentsOf = (sql: string) =>
  [...sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, "''").matchAll(/--[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) =>
    m[0].replace(/^--|^\/\*|\*\/$/g, ''),
  );

/** Why a word of the query cannot be shown, or undefined. */
export async function sqlWordsProblem(sql: string): Promise<string | undefined> {
  let words: string[];
  try {
    words = wordsOf(await parseSql(sql), []);
  } catch {
    return undefined; // the guard says what is wrong with a query that does not parse
  }
  for (const word of [...words, ...commentsOf(sql)]) {
    // names are read as words: "incidents_per_block" is three of them
    const problem = inertProblem(word.replace(/_/g, ' '));
    if (problem) return problem;
  }
  return undefined;
}
