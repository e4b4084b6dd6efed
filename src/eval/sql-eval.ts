// datadesk eval sql: the crime benchmark (fixtures/benchmarks/crime-100.jsonl,
// 30 easy / 40 medium / 30 hard) through the SQL agent with whatever LLM is
// configured (or none), scored as in the seed paper's Table 5: valid SQL rate,
// execution accuracy strict (the same rows, in order when the gold is ordered)
// and relaxed (column names and column order ignored, numbers within 1e-6
// relative), synthesis quality by an LLM judge when there is an LLM, and the
// failure reason of every miss.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { z } from 'zod';
import type { Cell } from '../core/answer.js';
import { fixturePath } from '../core/paths.js';
import type { SqlAgent } from '../agents/sql/agent.js';
import { runSql, type QueryResult } from '../agents/sql/execute.js';
import type { ThreadMemory } from '../memory/thread-memory.js';
import type { LlmClient } from '../llm/client.js';
import { renderPrompt } from '../llm/prompts.js';

export interface BenchmarkItem {
  id: string;
  tier: 'easy' | 'medium' | 'hard';
  question: string;
  sql: string;
  clarifications?: Record<string, string>;
}

export function loadBenchmark(file = fixturePath('benchmarks', 'crime-100.jsonl')): BenchmarkItem[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as BenchmarkItem);
}

const TOLERANCE = 1e-6;

function sameCell(a: Cell, b: Cell): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
  return String(a) === String(b);
}

const rowKey = (row: Cell[]) => JSON.stringify(row.map((c) => (typeof c === 'number' ? Math.round(c * 1e6) / 1e6 : c)));

function sameRows(gold: Cell[][], pred: Cell[][], ordered: boolean): boolean {
  if (gold.length !== pred.length) return false;
  if (ordered) return gold.every((row, i) => row.length === pred[i].length && row.every((c, j) => sameCell(c, pred[i][j])));
  const a = gold.map(rowKey).sort();
  const b = pred.map(rowKey).sort();
  return a.every((k, i) => k === b[i]);
}

export function strictMatch(gold: QueryResult, pred: QueryResult, ordered: boolean): boolean {
  return gold.columns.length === pred.columns.length && sameRows(gold.rows, pred.rows, ordered);
}

/** Every gold column appears among the predicted columns (names ignored), the rows agree. */
export function relaxedMatch(gold: QueryResult, pred: QueryResult, ordered: boolean): boolean {
  if (gold.rows.length !== pred.rows.length) return false;
  const column = (r: QueryResult, j: number) => r.rows.map((row) => row[j]);
  const used = new Set<number>();
  const mapping: number[] = [];
  for (let g = 0; g < gold.columns.length; g++) {
    const gc = column(gold, g);
    const match = pred.columns.findIndex((_, p) => {
      if (used.has(p)) return false;
      const pc = column(pred, p);
      if (ordered) return gc.every((c, i) => sameCell(c, pc[i]));
      const a = gc.map((c) => rowKey([c])).sort();
      const b = pc.map((c) => rowKey([c])).sort();
      return a.every((k, i) => k === b[i]);
    });
    if (match < 0) return false;
    used.add(match);
    mapping.push(match);
  }
  // the chosen columns must agree row by row too, not just column by column
  const projected = pred.rows.map((row) => mapping.map((p) => row[p]));
  return sameRows(gold.rows, projected, ordered);
}

export interface ItemOutcome {
  item: BenchmarkItem;
  valid: boolean;
  strict: boolean;
  relaxed: boolean;
  failure?: string;
  synthesis?: number;
  ms: number;
}

const judgeSchema = z.object({ score: z.number().min(1).max(5) });

export async function evaluateSql(
  deps: { agent: SqlAgent; memory: ThreadMemory; pool: pg.Pool; statementTimeoutMs: number; llm?: LlmClient },
  items: BenchmarkItem[],
): Promise<{ lines: string[]; outcomes: ItemOutcome[] }> {
  const outcomes: ItemOutcome[] = [];
  const run = `eval-${Date.now()}`;
  for (const item of items) {
    const threadId = `${run}:${item.id}`;
    if (item.clarifications) await deps.memory.update(threadId, (s) => Object.assign(s.clarifications, item.clarifications));
    const started = performance.now();
    const outcome = await deps.agent.ask({ question: item.question, threadId });
    const ms = performance.now() - started;
    const a = outcome.answer;
    if (a.kind !== 'result' || !outcome.sql) {
      const failure = a.kind === 'clarify' ? `clarification asked (${a.term})` : a.kind === 'refusal' ? 'unsupported (refused)' : 'invalid SQL';
      outcomes.push({ item, valid: false, strict: false, relaxed: false, failure, ms });
      continue;
    }
    const gold = await runSql(deps.pool, item.sql, deps.statementTimeoutMs, 10_000);
    const pred = await runSql(deps.pool, outcome.sql, deps.statementTimeoutMs, 10_000);
    const ordered = /\border\s+by\b/i.test(item.sql.replace(/over\s*\([^)]*\)/gi, ''));
    const strict = strictMatch(gold, pred, ordered);
    const relaxed = strict || relaxedMatch(gold, pred, ordered);
    let failure: string | undefined;
    if (!relaxed) {
      if (pred.rowCount === 0 && gold.rowCount > 0) failure = 'empty result';
      else if (pred.rows.length < gold.rows.length) failure = 'missing rows';
      else if (pred.columns.length < gold.columns.length) failure = 'missing columns';
      else failure = 'wrong values';
    }
    let synthesis: number | undefined;
    if (deps.llm) {
      const { value } = await deps.llm.chatJson({
        system: 'You grade answers strictly.',
        user: renderPrompt('eval-judge-narration', {
          question: item.question,
          gold: gold.rows.slice(0, 20).map((r) => r.join(' | ')).join('\n'),
          answer: a.narration,
        }),
        schema: judgeSchema,
      });
      synthesis = value.score;
    }
    outcomes.push({ item, valid: true, strict, relaxed, failure, synthesis, ms });
  }

  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : 'n/a');
  const lines = [
    `SQL benchmark: ${items.length} questions, ${deps.llm ? `LLM ${deps.llm.model}` : 'no LLM (verified queries only)'}`,
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
  const reasons = new Map<string, string[]>();
  for (const o of outcomes) if (o.failure) reasons.set(o.failure, [...(reasons.get(o.failure) ?? []), o.item.id]);
  if (reasons.size) {
    lines.push('failures:');
    for (const [reason, ids] of [...reasons].sort((a, b) => b[1].length - a[1].length)) lines.push(`  ${ids.length} x ${reason}: ${ids.join(', ')}`);
  }
  return { lines, outcomes };
}
