// The generate node. With an LLM: one SELECT from the question, the thread's
// clarifications and recent questions, the glossary definitions in play, and
// the verified pairs most similar to the question (retrieved, not fixed).
// Without one: a verified question type whose template covers the question
// exactly, filled with its slots; anything else is refused, never guessed.
import { z } from 'zod';
import type { LlmClient } from '../../llm/client.js';
import { renderPrompt } from '../../llm/prompts.js';
import { glossary, option, termsIn } from '../../knowledge/glossary.js';
import { extractSlots, templateSlots, type Slots } from '../../knowledge/slots.js';
import { exampleSql, fillTemplate, similarVerified, verifiedQueries, type VerifiedQuery } from '../../knowledge/verified-queries.js';
import type { PastQuestion } from '../../memory/thread-memory.js';
import { schemaPrompt, type SchemaInfo } from './schema.js';
import { QueryPlan } from '../../plan/query-plan.js';

export interface OfflineSql {
  sql: string;
  verifiedId: string;
  /** the question whose wording matched the template */
  basis: string;
  slots: Record<string, string | number>;
  assumptions: string[];
}

const DEFAULT_TOP_N = 10;

function templateSlotKinds(v: VerifiedQuery): (keyof Slots)[] {
  const texts = [v.template, ...Object.values(v.variants ?? {}).flatMap((byOption) => Object.values(byOption))];
  return [...new Set(texts.flatMap(templateSlots))];
}

/** `question` decides the cue and the glossary terms (for a follow-up: the earlier question). */
function tryTemplate(v: VerifiedQuery, question: string, slots: Slots, choices: Record<string, string>, consumed?: string[]): OfflineSql | undefined {
  if (!new RegExp(v.cue, 'i').test(question)) return undefined;
  if (consumed && uncoveredWords(question, v, consumed).length) return undefined;
  const needs = templateSlotKinds(v);
  const given = (Object.keys(slots) as (keyof Slots)[]).filter((k) => slots[k] !== undefined);
  // a filter the question states but the template would ignore: not this template
  if (given.some((k) => !needs.includes(k))) return undefined;
  const ambiguousHere = termsIn(question).filter((t) => t.options).map((t) => t.id);
  if (ambiguousHere.some((t) => !(v.terms ?? []).includes(t))) return undefined;
  if ((v.terms ?? []).some((t) => glossary().find((g) => g.id === t)?.options && !ambiguousHere.includes(t))) return undefined;
  const assumptions: string[] = [];
  const filled: Record<string, string | number> = { ...(slots as Record<string, string | number>) };
  if (needs.includes('n') && filled.n === undefined) {
    filled.n = DEFAULT_TOP_N;
    assumptions.push(`top ${DEFAULT_TOP_N} (no number given)`);
  }
  if (needs.some((k) => filled[k] === undefined)) return undefined;
  const sql = fillTemplate(v, filled, choices);
  return sql ? { sql, verifiedId: v.id, slots: filled, assumptions, basis: question } : undefined;
}

const FOLLOW_UP = /^\s*(and|what about|how about|only|just|now|same|but)\b/i;

// Words that carry no meaning of their own in these questions.
const FILLER = new Set(('a an the is are was were be been being of in on at to for from by with and or what which who how when where ' +
  'do does did there their it its this that these those me my i you we our can could would should please tell show give ' +
  'reported recorded happen happened happens occurred crimes crime incidents incident data chicago city all any ' +
  'about only just now same but than year during').split(' '));

const stem = (w: string) => w.replace(/(ies)$/, 'y').replace(/(es|s)$/, '');

/**
 * Words of the question that the verified query's own wording does not cover,
 * once slot phrases, glossary terms and filler words are set aside. Any such
 * word may change the meaning ("led to an arrest", "per month", "average"), so
 * offline, one uncovered word means no answer rather than a wrong one.
 */
export function uncoveredWords(question: string, v: VerifiedQuery, consumed: string[]): string[] {
  let text = ` ${question.toLowerCase()} `;
  for (const phrase of consumed) text = text.split(phrase.toLowerCase()).join(' ');
  // a glossary term the template implements (night, weekend, ...) is covered by it
  for (const t of termsIn(question).filter((x) => (v.terms ?? []).includes(x.id))) {
    for (const p of t.patterns) text = text.replace(new RegExp(p, 'gi'), ' ');
  }
  const vocabulary = new Set(
    [v.question, ...v.paraphrases].join(' ').toLowerCase().split(/[^a-z%]+/).filter(Boolean).map(stem),
  );
  return text
    .split(/[^a-z%]+/)
    .filter((w) => w && !FILLER.has(w) && !/^\d/.test(w))
    .filter((w) => !vocabulary.has(stem(w)));
}

export function generateOffline(
  question: string,
  schema: SchemaInfo,
  choices: Record<string, string>,
  history: PastQuestion[],
): OfflineSql | { reason: string } {
  const { slots, ambiguous, consumed } = extractSlots(question, schema.areas);
  if (ambiguous.length) return { reason: `the question mentions ${ambiguous.join(' and ')}; offline I answer one at a time` };
  for (const match of similarVerified(question, 6)) {
    const hit = tryTemplate(match.query, question, slots, choices, consumed);
    if (hit) return hit;
  }
  // A follow-up ("and in 2020?", "only district 11") asks the last question again with its slots
  // changed: the question type that fits the merged slots exactly, else no answer (never a dropped filter).
  const last = [...history].reverse().find((h) => h.verifiedId);
  if (last && Object.keys(slots).length && (FOLLOW_UP.test(question) || question.split(/\s+/).length <= 5)) {
    const merged = { ...(last.slots as Slots), ...slots };
    delete (merged as Record<string, unknown>).n;
    if (slots.n !== undefined) merged.n = slots.n;
    const previous = verifiedQueries().find((x) => x.id === last.verifiedId);
    const basis = last.basis ?? last.question;
    for (const v of [...(previous ? [previous] : []), ...verifiedQueries()]) {
      const hit = tryTemplate(v, basis, merged, choices);
      if (hit) return { ...hit, assumptions: [...hit.assumptions, `follow-up of "${basis}"`] };
    }
  }
  const closest = similarVerified(question, 1)[0]?.query.question;
  return { reason: `it does not match one of the ${verifiedQueries().length} question types I can answer exactly without an LLM${closest ? ` (the closest: "${closest}")` : ''}` };
}

/** The model fills a query plan when it can, and writes free SQL only for what the plan cannot say. */
const modelReply = z.union([z.object({ plan: QueryPlan }).strict(), z.object({ sql: z.string().min(1) })]);
export type ModelAnswer = { kind: 'plan'; plan: QueryPlan } | { kind: 'sql'; sql: string };

let planSchemaText: string | undefined;
const planSchema = () => (planSchemaText ??= JSON.stringify(z.toJSONSchema(QueryPlan, { io: 'input' })));

export interface LlmSqlRequest {
  question: string;
  schema: SchemaInfo;
  choices: Record<string, string>;
  history: PastQuestion[];
  previous?: { sql: string; error: string };
  /** the data's first and last day, for relative dates in a plan */
  dataFrom: string;
  dataTo: string;
  /** question/SQL pairs people vouched for that resemble the question: the first examples */
  curated?: { question: string; sql: string }[];
}

export async function generateWithLlm(llm: LlmClient, req: LlmSqlRequest): Promise<{ answer: ModelAnswer; tokens: number }> {
  const definitions = termsIn(req.question)
    .map((t) => {
      const chosen = req.choices[t.id] ? option(t.id, req.choices[t.id]) : undefined;
      if (chosen) return `- ${t.label}: ${chosen.label} (${chosen.description}) -> ${chosen.sql}`;
      return t.definition ? `- ${t.label}: ${t.definition}` : '';
    })
    .filter(Boolean)
    .join('\n') || '(none)';
  const examples = [
    ...(req.curated ?? []).map((p) => `Q: ${p.question}\nSQL: ${p.sql}`),
    ...similarVerified(req.question, 4).map((m) => `Q: ${m.query.question}\nSQL: ${exampleSql(m.query, req.choices) ?? m.query.template}`),
  ].join('\n\n');
  const last = req.history.at(-1);
  const user = renderPrompt('sql-generate', {
    schema: schemaPrompt(req.schema, req.question),
    definitions,
    examples,
    history: last?.sql ? `Earlier in this conversation:\nQ: ${last.question}\nSQL: ${last.sql}\n(A short follow-up changes that question.)\n\n` : '',
    question: req.question,
    plan_schema: planSchema(),
    data_from: req.dataFrom,
    data_to: req.dataTo,
    previous: req.previous ? `\nYour previous attempt failed.\nSQL: ${req.previous.sql}\nError: ${req.previous.error}\nWrite a corrected query.\n` : '',
  });
  const { value, usage } = await llm.chatJson({ system: 'You are a careful PostgreSQL analyst.', user, schema: modelReply });
  const tokens = usage.promptTokens + usage.completionTokens;
  if ('plan' in value) return { answer: { kind: 'plan', plan: value.plan }, tokens };
  // models often fence the SQL inside the JSON string too
  const sql = value.sql.trim().replace(/^```(?:sql)?\s*/i, '').replace(/\s*```$/, '').trim().replace(/;+\s*$/, '');
  return { answer: { kind: 'sql', sql }, tokens };
}
