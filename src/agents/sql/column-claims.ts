// A model's column names are read as the answer's labels: the narration says
// "Theft percent: 26." for a column named theft_percent, and the table heads
// the number with it. A hostile (or careless) model can name a count as a
// percentage, or a count of 2019 as thefts_2018, and every number shown is the
// database's while its label lies. The output columns' names are checked
// against what each computes: a year or a crime type a name says must be one
// the query reads, and a name that says percent, share or rate must not be a
// bare count ("thefts" over every crime was told as "Thefts: 260.").
import { parseSql } from '../../db/parse-sql.js';
import { semanticModel } from '../../plan/semantic-model.js';

type Json = Record<string, unknown>;

const YEAR = /(?:^|[^0-9])((?:19|20)\d\d)(?![0-9])/g;
/** Words of a name that claim a ratio, not a count. */
const RATIO = /(?:^|[^a-z])(percent|percentage|pct|share|rate|ratio|proportion|fraction)(?:$|[^a-z])/i;
const COUNTS = new Set(['count', 'sum']);

/** The years a query's constants name (year = 2019, '2019-05-01'), never its output names. */
function yearsRead(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const child of node) yearsRead(child, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === 'ival' && typeof value === 'number' && /^(19|20)\d\d$/.test(String(value))) out.add(String(value));
      else if (key === 'sval' && typeof value === 'string') for (const m of value.matchAll(YEAR)) out.add(m[1]);
      else yearsRead(value, out);
    }
  }
  return out;
}

/** The text values of a query's constants, upper-cased ('THEFT', '%theft%'). */
function textsRead(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) textsRead(child, out);
  else if (node && typeof node === 'object')
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === 'sval' && typeof value === 'string') out.push(value.toUpperCase());
      else textsRead(value, out);
    }
  return out;
}

/** The crime types a column name says, by their own names ("thefts", "motor_vehicle_theft"), longest first. */
function typesNamed(name: string): { type: string; word: string }[] {
  let words = ` ${name
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim()} `;
  const phrases = Object.entries(semanticModel().types)
    .filter(([k, t]) => !k.startsWith('_') && typeof t !== 'string')
    .flatMap(([type, t]) => [t.one, t.many].map((word) => ({ type, word })))
    .sort((a, b) => b.word.length - a.word.length);
  const found: { type: string; word: string }[] = [];
  for (const p of phrases)
    if (words.includes(` ${p.word} `)) {
      found.push(p);
      words = words.replace(` ${p.word} `, ' ');
    }
  return found;
}

/** count(*), count(x) or sum(x) with nothing around it: a number of rows, never a ratio. */
function bareCount(val: unknown): boolean {
  const call = (val as Json | undefined)?.FuncCall as { funcname?: { String?: { sval?: string } }[]; over?: unknown } | undefined;
  const name = call?.funcname?.at(-1)?.String?.sval?.toLowerCase();
  return Boolean(name && COUNTS.has(name) && !call?.over);
}

/** The outermost SELECT's output columns (a UNION's first arm names them): name and expression. */
function outputColumns(tree: { stmts?: { stmt: Json }[] }): { name: string; val: unknown }[] {
  let select = tree.stmts?.[0]?.stmt?.SelectStmt as Json | undefined;
  while (select?.larg) select = select.larg as Json;
  const targets = (select?.targetList as { ResTarget?: { name?: string; val?: unknown } }[] | undefined) ?? [];
  return targets.flatMap((t) => (t.ResTarget?.name ? [{ name: t.ResTarget.name, val: t.ResTarget.val }] : []));
}

/** Why a column's name says something its value is not, or undefined. The message is ours, for the model. */
export async function columnClaimProblem(sql: string): Promise<string | undefined> {
  let tree: { stmts?: { stmt: Json }[] };
  try {
    tree = (await parseSql(sql)) as unknown as typeof tree;
  } catch {
    return undefined; // the guard has refused it already
  }
  const read = yearsRead(tree);
  const texts = textsRead(tree);
  for (const { name, val } of outputColumns(tree)) {
    for (const [, year] of name.matchAll(YEAR))
      if (!read.has(year))
        return `The column "${name}" names ${year}, but the query does not read ${year}: name each column for what it computes.`;
    for (const { type, word } of typesNamed(name))
      if (!texts.some((t) => t.includes(type) || t.includes(word.toUpperCase())))
        return `The column "${name}" names ${word}, but the query does not select ${type}: name each column for what it computes.`;
    if (RATIO.test(name) && bareCount(val))
      return `The column "${name}" names a ratio, but it is a count: compute the ratio (e.g. 100.0 * count(*) / total), or name it as a count.`;
  }
  return undefined;
}
