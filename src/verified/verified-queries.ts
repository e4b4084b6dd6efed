// The questions Data Desk ships with (fixtures/knowledge/verified-queries.jsonl):
// the few-shot examples most similar to a question (BM25 via minisearch), each
// with the SQL its plan compiles to, and the verified pairs seeded from them.
// There are no templates: the plan reader reads these questions like any
// other (test/plan/verified-fixture.test.ts holds each to its plan).
import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';
import { z } from 'zod';
import { fixturePath } from '../core/paths.js';
import { glossary } from '../knowledge/glossary.js';
import { compilePlan } from '../plan/compile.js';
import { parsePlan, type QueryPlan } from '../plan/query-plan.js';
import { readQuestion, type ReadContext } from '../plan/reader.js';

const verifiedSchema = z
  .object({
    id: z.string(),
    question: z.string(),
    paraphrases: z.array(z.string()),
    /** the glossary terms its plan rests on (documentation; the reader finds them) */
    terms: z.array(z.string()).optional(),
  })
  .strict();
export type VerifiedQuery = z.infer<typeof verifiedSchema>;

const STOP_WORDS = new Set(
  (
    'a an the is are was were be been of in on at to for from by with and or what which who how ' +
    'when where why do does did there their it its this that these those me my i you your we our can could would should please tell show give'
  ).split(' '),
);

let all: VerifiedQuery[] | undefined;
let index: MiniSearch<{ id: string; text: string }> | undefined;

export function verifiedQueries(): VerifiedQuery[] {
  all ??= readFileSync(fixturePath('knowledge', 'verified-queries.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => verifiedSchema.parse(JSON.parse(l)));
  return all;
}

export interface VerifiedMatch {
  query: VerifiedQuery;
  score: number;
}

export function similarVerified(question: string, k = 4): VerifiedMatch[] {
  if (!index) {
    index = new MiniSearch({
      fields: ['text'],
      storeFields: ['id'],
      // words every question has say nothing about which query it is
      processTerm: (term) => (STOP_WORDS.has(term.toLowerCase()) ? null : term.toLowerCase()),
      searchOptions: { fuzzy: 0.15, prefix: true },
    });
    index.addAll(verifiedQueries().map((v) => ({ id: v.id, text: [v.question, ...v.paraphrases].join(' ') })));
  }
  const byId = new Map(verifiedQueries().map((v) => [v.id, v]));
  return index
    .search(question)
    .slice(0, k)
    .map((hit) => ({ query: byId.get(hit.id as string)!, score: hit.score }));
}

/** The plan a fixture question reads to, with the glossary choices it needs (given ones, else each term's first option). */
export function fixturePlan(
  v: VerifiedQuery,
  ctx: ReadContext,
  choices: Record<string, string> = {},
): { plan: QueryPlan; choices: Record<string, string> } | undefined {
  const reading = readQuestion(v.question, ctx);
  if (!reading.ok) return undefined;
  const used: Record<string, string> = {};
  for (const term of reading.terms) used[term] = choices[term] ?? firstOption(term);
  const plan = parsePlan(reading.plan);
  return {
    plan: used.calendar_day === 'day_of_year' ? { ...plan, groupBy: plan.groupBy.map((d) => (d === 'date' ? 'day_of_year' : d)) } : plan,
    choices: used,
  };
}

/**
 * The example pair shown to the model: the SQL the question's plan compiles to. A question that names
 * no number of rows gets no LIMIT ("which community areas had the most burglaries" with LIMIT 10
 * taught the model to add one, the very failure the seed paper removed); the compiler adds none then.
 */
export function exampleSql(v: VerifiedQuery, ctx: ReadContext, choices: Record<string, string> = {}): string | undefined {
  const read = fixturePlan(v, ctx, choices);
  // against crimes, the table the model is shown (a rollup is the compiler's choice, not the model's)
  return read ? compilePlan(read.plan, read.choices, { rollups: false }).sql : undefined;
}

function firstOption(term: string): string {
  return glossary().find((t) => t.id === term)?.options?.[0]?.id ?? '';
}
