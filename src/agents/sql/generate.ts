// The generate node's model call: one reply from the question, the thread's
// clarifications, the glossary definitions in play, the verified pairs most
// similar to the question (retrieved, not fixed) and, only when the text is a
// fragment that edits the last answer ("and in 2021?"), that answer. The model
// fills a query plan when it can, and writes free SQL only for what the plan
// cannot say. Without a model, what the plan reader cannot read is refused.
import { z } from 'zod';
import type { LlmClient } from '../../llm/client.js';
import { renderPrompt } from '../../llm/prompts.js';
import { option, termsIn } from '../../knowledge/glossary.js';
import { exampleSql, similarVerified } from '../../verified/verified-queries.js';
import type { PastQuestion } from '../../memory/thread-memory.js';
import { schemaPrompt, type SchemaInfo } from './schema.js';
import { QueryPlan } from '../../plan/query-plan.js';
import type { ReadContext } from '../../plan/reader.js';

/** The model fills a query plan when it can, and writes free SQL only for what the plan cannot say. */
const modelReply = z.union([
  z.object({ plan: QueryPlan }).strict(),
  z.object({ sql: z.string().min(1), question: z.string().max(300).optional() }),
]);
/** question: on a fragment, the question the model answered in full words (it folds the earlier question in) */
export type ModelAnswer = { kind: 'plan'; plan: QueryPlan } | { kind: 'sql'; sql: string; question?: string };

let planSchemaText: string | undefined;
const planSchema = () => (planSchemaText ??= JSON.stringify(z.toJSONSchema(QueryPlan, { io: 'input' })));

export interface LlmSqlRequest {
  question: string;
  schema: SchemaInfo;
  choices: Record<string, string>;
  /** the answer a fragment edits; undefined for a question complete on its own (it inherits nothing) */
  edits?: PastQuestion;
  /** the reader's context: the fixture examples' SQL is compiled from their plans */
  readContext: ReadContext;
  previous?: { sql: string; error: string };
  /** the data's first and last day, for relative dates in a plan */
  dataFrom: string;
  dataTo: string;
  /** question/SQL pairs people vouched for that resemble the question: the first examples */
  curated?: { question: string; sql: string }[];
}

export async function generateWithLlm(llm: LlmClient, req: LlmSqlRequest): Promise<{ answer: ModelAnswer; tokens: number }> {
  const definitions =
    termsIn(req.question)
      .map((t) => {
        const chosen = req.choices[t.id] ? option(t.id, req.choices[t.id]) : undefined;
        if (chosen) return `- ${t.label}: ${chosen.label} (${chosen.description}) -> ${chosen.sql}`;
        return t.definition ? `- ${t.label}: ${t.definition}` : '';
      })
      .filter(Boolean)
      .join('\n') || '(none)';
  const examples = [
    ...(req.curated ?? []).map((p) => `Q: ${p.question}\nSQL: ${p.sql}`),
    ...similarVerified(req.question, 4).flatMap((m) => {
      const sql = exampleSql(m.query, req.readContext, req.choices);
      return sql ? [`Q: ${m.query.question}\nSQL: ${sql}`] : [];
    }),
  ].join('\n\n');
  const last = req.edits;
  const user = renderPrompt('sql-generate', {
    schema: schemaPrompt(req.schema, req.question),
    definitions,
    examples,
    history: last?.sql
      ? `This message edits the last answer in this conversation:\nQ: ${last.question}\nSQL: ${last.sql}\n` +
        "Answer the edited question, changing only the slot the message speaks to: a bare month takes the last answer's year, " +
        '"last year" and "the year before" count from its period, a grouping over something it pinned to one value covers every value. ' +
        'With free SQL, also give "question": the edited question in full words.\n\n'
      : '',
    question: req.question,
    plan_schema: planSchema(),
    data_from: req.dataFrom,
    data_to: req.dataTo,
    previous: req.previous
      ? `\nYour previous attempt failed.\nSQL: ${req.previous.sql}\nError: ${req.previous.error}\nWrite a corrected query.\n`
      : '',
  });
  const { value, usage } = await llm.chatJson({ system: 'You are a careful PostgreSQL analyst.', user, schema: modelReply });
  const tokens = usage.promptTokens + usage.completionTokens;
  if ('plan' in value) return { answer: { kind: 'plan', plan: value.plan }, tokens };
  // models often fence the SQL inside the JSON string too
  const sql = value.sql
    .trim()
    .replace(/^```(?:sql)?\s*/i, '')
    .replace(/\s*```$/, '')
    .trim()
    .replace(/;+\s*$/, '');
  return { answer: { kind: 'sql', sql, ...(value.question ? { question: value.question.trim() } : {}) }, tokens };
}
