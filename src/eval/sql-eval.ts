// datadesk eval sql: the crime benchmarks through the SQL agent with whatever
// LLM is configured (or none). Two files: crime-100.jsonl (30 easy / 40 medium
// / 30 hard, written as questions) and crime-chat-40.jsonl (12 / 16 / 12,
// written the way people type in chat: lower case, typos, relative dates).
// Each item's clarifications are stored in its thread before it is asked, as
// if the user had answered the bot's question. Scored as in the seed paper's
// Table 5: valid SQL rate, execution accuracy strict (the same rows, in order
// when the gold is ordered) and relaxed (column names and column order
// ignored, numbers within 1e-6 relative), synthesis quality by an LLM judge
// when there is an LLM, and the failure reason of every miss; and, per file
// and tier, what became of each question: right (strict or relaxed match),
// wrong (a result that does not match the gold), refused, asked (a
// clarifying question) or error. Wrong is the count that must stay at 0.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type pg from 'pg';
import { z } from 'zod';
import type { Answer } from '../core/answer.js';
import { fixturePath } from '../core/paths.js';
import type { SqlAgent, SqlOutcome } from '../agents/sql/agent.js';
import { runSql } from '../agents/sql/execute.js';
import type { QueryResult } from '../core/result-shape.js';
import { scoreResult } from '../core/result-match.js';

export { relaxedMatch, scoreResult, strictMatch } from '../core/result-match.js';
import type { ThreadMemory } from '../memory/thread-memory.js';
import type { LlmClient } from '../llm/client.js';
import { renderPrompt } from '../llm/prompts.js';

const itemSchema = z.object({
  id: z.string().min(1),
  tier: z.enum(['easy', 'medium', 'hard']),
  question: z.string().min(1),
  sql: z.string().min(1),
  /** glossary term -> option id, as if the user had answered the bot's clarifying question */
  clarifications: z.record(z.string(), z.string()).optional(),
});

export interface BenchmarkItem extends z.infer<typeof itemSchema> {
  /** the file it came from, without .jsonl ("crime-100") */
  file?: string;
}

const TIERS = ['easy', 'medium', 'hard'] as const;

/** The benchmark files `datadesk eval sql` runs, in order. */
export const BENCHMARK_FILES = ['crime-100.jsonl', 'crime-chat-40.jsonl'] as const;

export function loadBenchmark(file = fixturePath('benchmarks', 'crime-100.jsonl')): BenchmarkItem[] {
  const name = basename(file).replace(/\.jsonl$/, '');
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => line.trim())
    .map(({ line, n }) => {
      const parsed = itemSchema.safeParse(JSON.parse(line));
      if (!parsed.success)
        throw new Error(`${name}.jsonl line ${n}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return { ...parsed.data, file: name };
    });
}

/** Every benchmark file, in order; ids are unique across them (they name threads and failures). */
export function loadBenchmarks(files: readonly string[] = BENCHMARK_FILES.map((f) => fixturePath('benchmarks', f))): BenchmarkItem[] {
  const items = files.flatMap((f) => loadBenchmark(f));
  const seen = new Map<string, string>();
  for (const i of items) {
    if (seen.has(i.id)) throw new Error(`benchmark id ${i.id} is in ${seen.get(i.id)} and ${i.file}: ids must be unique across the files`);
    seen.set(i.id, i.file!);
  }
  return items;
}

/** What became of a question: answered (right or wrong) or not (refused, asked back, error). */
type OutcomeStatus = 'right' | 'wrong' | 'refused' | 'asked' | 'error';

export interface ItemOutcome {
  item: BenchmarkItem;
  status: OutcomeStatus;
  /**
   * the agent gave a result with SQL that PostgreSQL ran (the "valid SQL" rate); right or wrong, or an
   * error when the gold query, or the answer's query run again here, failed and it could not be scored
   */
  valid: boolean;
  strict: boolean;
  relaxed: boolean;
  failure?: string;
  synthesis?: number;
  ms: number;
}

/** An item the run could not judge (the agent, the gold query or a re-run failed): an error, never right or wrong. */
const errorOutcome = (item: BenchmarkItem, valid: boolean, failure: string, ms: number): ItemOutcome => ({
  item,
  status: 'error',
  valid,
  strict: false,
  relaxed: false,
  failure,
  ms,
});

const judgeSchema = z.object({ score: z.number().min(1).max(5) });

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 160);

/** The failure label of an answer that is not a result. */
function notAnswered(a: Answer): { status: OutcomeStatus; failure: string } {
  if (a.kind === 'clarify') return { status: 'asked', failure: `clarification asked (${a.term})` };
  if (a.kind === 'refusal') return { status: 'refused', failure: 'unsupported (refused)' };
  if (a.kind === 'error' && /could not write a valid query/.test(a.message)) return { status: 'error', failure: 'invalid SQL' };
  if (a.kind === 'error') return { status: 'error', failure: `error: ${a.message.split(/(?<=\.)\s/)[0].slice(0, 100)}` };
  return { status: 'error', failure: 'a result without SQL' };
}

export async function evaluateSql(
  deps: { agent: Pick<SqlAgent, 'ask'>; memory: ThreadMemory; pool: pg.Pool; statementTimeoutMs: number; llm?: LlmClient },
  items: BenchmarkItem[],
): Promise<SqlEvalReport> {
  const outcomes: ItemOutcome[] = [];
  const run = `eval-${Date.now()}`;
  for (const item of items) {
    const threadId = `${run}:${item.file ?? 'benchmark'}:${item.id}`;
    const started = performance.now();
    let outcome: SqlOutcome;
    try {
      if (item.clarifications) await deps.memory.update(threadId, (s) => Object.assign(s.clarifications, item.clarifications));
      outcome = await deps.agent.ask({ question: item.question, threadId });
    } catch (error) {
      outcomes.push(errorOutcome(item, false, `error: ${message(error)}`, performance.now() - started));
      continue;
    }
    const ms = performance.now() - started;
    const a = outcome.answer;
    if (a.kind !== 'result' || !outcome.sql) {
      outcomes.push({ item, ...notAnswered(a), valid: false, strict: false, relaxed: false, ms });
      continue;
    }
    let gold: QueryResult;
    let pred: QueryResult;
    try {
      gold = await runSql(deps.pool, item.sql, deps.statementTimeoutMs, 10_000);
    } catch (error) {
      // a broken gold query is the benchmark's fault: counted as an error, never as a wrong answer
      outcomes.push(errorOutcome(item, true, `gold query failed: ${message(error)}`, ms));
      continue;
    }
    // what the user saw: the rows the answer was built from and its true row count, not a re-run of its SQL
    if (outcome.result) pred = outcome.result;
    else {
      try {
        pred = await runSql(deps.pool, outcome.sql, deps.statementTimeoutMs, 10_000);
      } catch (error) {
        outcomes.push(errorOutcome(item, true, `the answer's query failed on re-run: ${message(error)}`, ms));
        continue;
      }
    }
    const { strict, relaxed, failure } = scoreResult(item.sql, gold, pred);
    let synthesis: number | undefined;
    if (deps.llm) {
      const { value } = await deps.llm.chatJson({
        system: 'You grade answers strictly.',
        user: renderPrompt('eval-judge-narration', {
          question: item.question,
          gold: gold.rows
            .slice(0, 20)
            .map((r) => r.join(' | '))
            .join('\n'),
          answer: a.narration,
        }),
        schema: judgeSchema,
      });
      synthesis = value.score;
    }
    outcomes.push({ item, status: relaxed ? 'right' : 'wrong', valid: true, strict, relaxed, failure, synthesis, ms });
  }
  return report(outcomes, deps.llm);
}

export interface OutcomeCounts {
  /** a benchmark file's name, or 'all' */
  file: string;
  /** a tier, or 'all' */
  tier: string;
  questions: number;
  /** a scored result: right + wrong */
  answered: number;
  right: number;
  wrong: number;
  refused: number;
  asked: number;
  errors: number;
}

/** Counts per file and tier (then 'all' tiers of the file), and the grand total last. */
export function countOutcomes(outcomes: ItemOutcome[]): OutcomeCounts[] {
  const count = (file: string, tier: string, of: ItemOutcome[]): OutcomeCounts => {
    const n = (s: OutcomeStatus) => of.filter((o) => o.status === s).length;
    return {
      file,
      tier,
      questions: of.length,
      answered: n('right') + n('wrong'),
      right: n('right'),
      wrong: n('wrong'),
      refused: n('refused'),
      asked: n('asked'),
      errors: n('error'),
    };
  };
  const files = [...new Set(outcomes.map((o) => o.item.file ?? 'benchmark'))];
  const rows: OutcomeCounts[] = [];
  for (const file of files) {
    const inFile = outcomes.filter((o) => (o.item.file ?? 'benchmark') === file);
    for (const tier of TIERS)
      rows.push(
        count(
          file,
          tier,
          inFile.filter((o) => o.item.tier === tier),
        ),
      );
    rows.push(count(file, 'all', inFile));
  }
  rows.push(count('all', 'all', outcomes));
  return rows;
}

export interface SqlEvalReport {
  lines: string[];
  outcomes: ItemOutcome[];
  counts: OutcomeCounts[];
}

function report(outcomes: ItemOutcome[], llm: LlmClient | undefined): SqlEvalReport {
  const files = [...new Set(outcomes.map((o) => o.item.file ?? 'benchmark'))];
  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : 'n/a');
  const perFile = files.map((f) => `${f} ${outcomes.filter((o) => (o.item.file ?? 'benchmark') === f).length}`).join(', ');
  const lines = [
    `SQL benchmark: ${outcomes.length} questions (${perFile}), ${llm ? `LLM ${llm.model}` : 'no LLM (query plan and verified queries only)'}`,
    'tier | n | valid SQL | EX strict | EX relaxed | synthesis (1-5) | median ms',
  ];
  for (const tier of ['easy', 'medium', 'hard', 'all'] as const) {
    const of = outcomes.filter((o) => tier === 'all' || o.item.tier === tier);
    const judged = of.filter((o) => o.synthesis !== undefined);
    const ms = of.map((o) => o.ms).sort((x, y) => x - y)[Math.floor(of.length / 2)] ?? 0;
    lines.push(
      `${tier} | ${of.length} | ${pct(of.filter((o) => o.valid).length, of.length)} | ${pct(of.filter((o) => o.strict).length, of.length)} | ` +
        `${pct(of.filter((o) => o.relaxed).length, of.length)} | ${judged.length ? (judged.reduce((s, o) => s + o.synthesis!, 0) / judged.length).toFixed(2) : 'n/a'} | ${ms.toFixed(0)}`,
    );
  }
  const counts = countOutcomes(outcomes);
  lines.push('file | tier | questions | answered | right | wrong | refused | asked | errors');
  for (const c of counts) lines.push([c.file, c.tier, c.questions, c.answered, c.right, c.wrong, c.refused, c.asked, c.errors].join(' | '));
  const reasons = new Map<string, string[]>();
  for (const o of outcomes) if (o.failure) reasons.set(o.failure, [...(reasons.get(o.failure) ?? []), o.item.id]);
  if (reasons.size) {
    lines.push('failures:');
    for (const [reason, ids] of [...reasons].sort((a, b) => b[1].length - a[1].length))
      lines.push(`  ${ids.length} x ${reason}: ${ids.join(', ')}`);
  }
  return { lines, outcomes, counts };
}
