// Verified question/SQL pairs (fixtures/knowledge/verified-queries.jsonl): the
// few-shot examples most similar to a question (BM25 via minisearch), and,
// without an LLM, templates filled with the question's slots.
import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';
import { z } from 'zod';
import { fixturePath } from '../core/paths.js';
import { glossary, option } from './glossary.js';
import type { Slots } from './slots.js';

const verifiedSchema = z.object({
  id: z.string(),
  question: z.string(),
  paraphrases: z.array(z.string()),
  cue: z.string(),
  example: z.record(z.string(), z.union([z.string(), z.number()])),
  template: z.string(),
  terms: z.array(z.string()).optional(),
  variants: z.record(z.string(), z.record(z.string(), z.string())).optional(),
});
export type VerifiedQuery = z.infer<typeof verifiedSchema>;

const STOP_WORDS = new Set(('a an the is are was were be been of in on at to for from by with and or what which who how ' +
  'when where why do does did there their it its this that these those me my i you your we our can could would should please tell show give').split(' '));

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
  return index.search(question).slice(0, k).map((hit) => ({ query: byId.get(hit.id as string)!, score: hit.score }));
}

const literal = (v: string | number) => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);

/**
 * The template filled with slot values and glossary choices; undefined when a
 * slot or a choice it needs is missing.
 */
export function fillTemplate(v: VerifiedQuery, slots: Slots & Record<string, string | number | undefined>, choices: Record<string, string>): string | undefined {
  let template = v.template;
  for (const [term, byOption] of Object.entries(v.variants ?? {})) {
    const chosen = choices[term];
    if (!chosen || !byOption[chosen]) return undefined;
    template = byOption[chosen];
  }
  let missing = false;
  const sql = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const slot = slots[name];
    if (slot !== undefined) return literal(slot);
    const chosen = choices[name];
    const opt = chosen ? option(name, chosen) : undefined;
    if (opt) return opt.sql;
    missing = true;
    return '';
  });
  return missing ? undefined : sql;
}

/** The example's own SQL (the template filled with its example values), for few-shot prompts. */
/**
 * The example pair shown to the model. A question that names no number of rows
 * gets no LIMIT: "which community areas had the most burglaries" with LIMIT 10
 * taught the model to add one, the very failure the seed paper removed.
 */
export function exampleSql(v: VerifiedQuery, choices: Record<string, string> = {}): string | undefined {
  const defaults: Record<string, string> = {};
  for (const term of v.terms ?? []) defaults[term] = choices[term] ?? firstOption(term);
  const sql = fillTemplate(v, v.example as Slots & Record<string, string | number>, defaults);
  return sql && !namesARowCount(v.question) ? sql.replace(/\s+LIMIT\s+\d+\s*$/i, '') : sql;
}

/** "top 5", "the 3 districts": a number in the question other than a year. */
const namesARowCount = (question: string) => /\b\d+\b/.test(question.replace(/\b(19|20)\d{2}\b/g, ''));

function firstOption(term: string): string {
  return glossary().find((t) => t.id === term)?.options?.[0]?.id ?? '';
}
