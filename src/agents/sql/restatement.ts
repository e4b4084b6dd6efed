// A model's restated question is checked before it is stored, shown or used
// as the next turn's context (issue 32). On a fragment answered with free SQL,
// the model also says the edited question in full words; a model that says
// one thing and runs another would put a wrong question into the headline,
// the thread's memory (the next fragment's prompt), Slack's thread title and,
// on a 👍, a verified pair. The restatement is read back by the plan reader:
// when it reads, our compiler's answer to it must be the model's rows; when it
// does not, the years and crime types it names must be the SQL's, and the
// SQL's its. Only a restatement the reader reads is ever shown or stored, and
// then in our words (resolvedQuestion of its plan), never the model's: one that
// passes only the literal check leaves the thread with the words typed.
import { compilePlan, PlanCompileError } from '../../plan/compile.js';
import { parsePlan } from '../../plan/query-plan.js';
import { readQuestion } from '../../plan/reader.js';
import { scan } from '../../plan/read/scan.js';
import type { ReadContext } from '../../plan/read/context.js';
import { termsOf } from '../../plan/read/assemble.js';
import type { QueryResult } from '../../core/result-shape.js';
import { relaxedMatch } from '../../core/result-match.js';
import { semanticModel } from '../../plan/semantic-model.js';
import { resolvedQuestion } from '../../plan/read/describe.js';

/** words: the restated question in our words, when the plan reader read it */
export type RestatementCheck = { ok: true; words?: string } | { ok: false; why: string };

interface CheckInput {
  restated: string;
  sql: string;
  /** the rows the model's SQL gave */
  result: QueryResult;
  ctx: ReadContext;
  choices: Record<string, string>;
  /** runs our compiled SQL under the same walls as the answer */
  run: (sql: string) => Promise<QueryResult>;
}

export async function checkRestatement(input: CheckInput): Promise<RestatementCheck> {
  const reading = readQuestion(input.restated, input.ctx);
  if (reading.ok) {
    const plan = parsePlan(reading.plan);
    // a term the thread has no choice for cannot be compiled here: the literal check decides
    if (termsOf(plan).every((t) => input.choices[t])) {
      let ours: QueryResult;
      try {
        ours = await input.run(compilePlan(plan, input.choices).sql);
      } catch (error) {
        if (!(error instanceof PlanCompileError)) throw error;
        return literalCheck(input);
      }
      const same =
        ours.rowCount === input.result.rowCount && (relaxedMatch(ours, input.result, false) || relaxedMatch(input.result, ours, false));
      return same
        ? { ok: true, words: resolvedQuestion(plan, input.ctx) }
        : { ok: false, why: 'the restated question, read and answered by the plan reader, gives other rows' };
    }
  }
  return literalCheck(input);
}

const YEAR = /\b(19|20)\d\d\b/g;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
/** A month named with its year ("April 2019", "april of 2019"): a bare "may" is too often the verb to count. */
const MONTH_YEAR = new RegExp(`\\b(${MONTHS.join('|')})(?:\\s+of)?,?\\s+((?:19|20)\\d\\d)\\b`, 'gi');

/**
 * The years, months and crime types the restatement names are the SQL's, and the other way round. `said` names the
 * words in the reasons: the model's restatement, or our words for what the reader read.
 */
export function literalCheck(
  { restated, sql, ctx }: Pick<CheckInput, 'restated' | 'sql' | 'ctx'>,
  said = 'the restated question',
  /** false: only what the words name must be the query's (the words are a partial reading, the query may pin more) */
  bothWays = true,
): RestatementCheck {
  const literals = [...sql.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replace(/''/g, "'").toUpperCase());
  const code = sql.replace(/'(?:[^']|'')*'/g, "''");
  const sqlYears = new Set([...code.matchAll(YEAR), ...literals.join(' ').matchAll(YEAR)].map((m) => m[0]));
  const saidYears = new Set([...restated.matchAll(YEAR)].map((m) => m[0]));
  for (const y of saidYears) if (!sqlYears.has(y)) return { ok: false, why: `${said} names ${y}, the query does not` };
  // '2020-01-01' ending a period of 2019 (date < '2020-01-01') is no reading of 2020
  const ends = new Set(literals.flatMap((l) => [...l.matchAll(/\b((?:19|20)\d\d)-01-01\b/g)].map((m) => m[1])));
  const onlyEnd = (y: string) => ends.has(y) && sqlYears.has(String(Number(y) - 1)) && !new RegExp(`\\b${y}\\b`).test(code);
  if (bothWays)
    for (const y of sqlYears)
      if (!saidYears.has(y) && !onlyEnd(y)) return { ok: false, why: `the query reads ${y}, ${said} does not say it` };
  // a month said with its year must be a month the query's dates start (April 2019: '2019-04-01' ... '2019-05-01')
  const sqlMonths = new Set(literals.flatMap((l) => [...l.matchAll(/\b((?:19|20)\d\d)-(\d\d)-\d\d\b/g)].map((m) => `${m[1]}-${m[2]}`)));
  for (const m of restated.matchAll(MONTH_YEAR)) {
    const month = `${m[2]}-${String(MONTHS.indexOf(m[1].toLowerCase()) + 1).padStart(2, '0')}`;
    if (!sqlMonths.has(month)) return { ok: false, why: `${said} names ${month}, the query's dates do not` };
  }
  const saidTypes = new Set(scan(restated, ctx).pieces.flatMap((p) => (p.kind === 'type' ? p.types : [])));
  for (const t of saidTypes) if (!literals.includes(t)) return { ok: false, why: `${said} names ${t.toLowerCase()}, the query does not` };
  const types = new Set(Object.keys(semanticModel().types));
  const typeLiterals = literals.filter((l) => types.has(l));
  for (const t of bothWays ? typeLiterals : [])
    if (!saidTypes.has(t)) return { ok: false, why: `the query counts ${t.toLowerCase()}, ${said} does not say it` };
  return { ok: true };
}
