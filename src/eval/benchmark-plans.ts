// The benchmark questions the offline reader reads into plans, each with the
// glossary choices it needs (the first option of each ambiguous term: any
// fixed choice will do for comparing two ways of answering the same plan).
import { loadBenchmarks } from './sql-eval.js';
import { glossary } from '../knowledge/glossary.js';
import { parsePlan, type QueryPlan } from '../plan/query-plan.js';
import { readQuestion, type ReadContext } from '../plan/reader.js';

export interface BenchmarkPlan {
  id: string;
  question: string;
  plan: QueryPlan;
  choices: Record<string, string>;
}

function firstChoices(terms: readonly string[]): Record<string, string> {
  return Object.fromEntries(terms.map((t) => [t, glossary().find((g) => g.id === t)?.options?.[0]?.id ?? '']));
}

export function benchmarkPlans(ctx: ReadContext): BenchmarkPlan[] {
  return loadBenchmarks().flatMap((item) => {
    const read = readQuestion(item.question, ctx);
    return read.ok ? [{ id: item.id, question: item.question, plan: parsePlan(read.plan), choices: firstChoices(read.terms) }] : [];
  });
}
