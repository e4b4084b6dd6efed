// The six-node SQL agent: relevance -> schema -> generate -> validate (back to
// generate with the error, at most 3 attempts) -> run -> synthesize. Each node
// is a step of the small graph below, timed into the answer's trace. Ambiguous
// glossary terms are settled from thread memory, the workspace defaults, or a
// clarifying question before anything is generated.
import type pg from 'pg';
import type { Answer, TraceStep } from '../../core/answer.js';
import { makeAnswer, timed } from '../../core/answer.js';
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { QueryTimeoutError } from '../../db/read-only.js';
import { LlmError, type LlmClient } from '../../llm/client.js';
import { renderPrompt } from '../../llm/prompts.js';
import { isAmbiguous, option, termsIn } from '../../knowledge/glossary.js';
import type { ThreadMemory } from '../../memory/thread-memory.js';
import { chooseChart } from '../../charts/choose-chart.js';
import { validateSql, runSql, type QueryResult } from './execute.js';
import { generateOffline, generateWithLlm } from './generate.js';
import { narrate, uncheckedNumbers, humanize, TIME_COLUMN } from './narrator.js';
import { introspectSchema, type SchemaInfo } from './schema.js';

export interface SqlAgentDeps {
  pool: pg.Pool;
  logger: Logger;
  memory: ThreadMemory;
  llm?: LlmClient;
  statementTimeoutMs: number;
  displayRows: number;
  glossaryDefaults: Record<string, string>;
}

export interface SqlQuestion {
  question: string;
  /** a thread id unique across platforms, e.g. "slack:C123:1700000000.0001" */
  threadId: string;
}

export interface SqlOutcome {
  answer: Answer;
  sql?: string;
  result?: QueryResult;
  tokens: number;
}

const MAX_ATTEMPTS = 3;
const route = 'sql' as const;

export class SqlAgent {
  private schema?: Promise<SchemaInfo>;

  constructor(private readonly deps: SqlAgentDeps) {}

  /** The schema, introspected once (a new agent after a migration sees the new one). */
  schemaInfo(): Promise<SchemaInfo> {
    this.schema ??= introspectSchema(this.deps.pool).catch((error) => {
      this.schema = undefined;
      throw error;
    });
    return this.schema;
  }

  async ask(q: SqlQuestion, progress?: (step: string) => void): Promise<SqlOutcome> {
    const trace: TraceStep[] = [];
    let tokens = 0;
    let lastSql: string | undefined;
    try {
      progress?.('Reading the schema');
      const schema = await timed(trace, 'schema', () => this.schemaInfo());
      const thread = await this.deps.memory.get(q.threadId);

      // clarifications: every ambiguous term needs a choice before generating
      const choices: Record<string, string> = {};
      const assumptions: string[] = [];
      for (const term of termsIn(q.question).filter(isAmbiguous)) {
        const chosen = thread.clarifications[term.id] ?? this.deps.glossaryDefaults[term.id];
        if (!chosen) {
          await this.deps.memory.update(q.threadId, (s) => (s.pending = { question: q.question, term: term.id }));
          return {
            tokens,
            answer: makeAnswer({
              kind: 'clarify', route, trace, term: term.id, question: term.question ?? `What does "${term.label}" mean here?`,
              options: term.options!.map((o) => ({ id: o.id, label: o.label, description: o.description })),
            }),
          };
        }
        choices[term.id] = chosen;
        const opt = option(term.id, chosen)!;
        assumptions.push(`${term.label}: ${opt.label}${thread.clarifications[term.id] ? '' : ' (workspace default)'}`);
      }

      // generate + validate, at most MAX_ATTEMPTS times
      let offline: ReturnType<typeof generateOffline> | undefined;
      let previous: { sql: string; error: string } | undefined;
      let sql: string | undefined;
      // the LLM failing on the first attempt falls back to the verified queries
      let llmUnavailable = false;
      for (let attempt = 1; attempt <= MAX_ATTEMPTS && !sql; attempt++) {
        progress?.(attempt === 1 ? 'Writing the query' : `Rewriting the query (attempt ${attempt})`);
        let candidate: string | undefined;
        let llmDown: LlmError | undefined;
        if (this.deps.llm && !llmUnavailable) {
          try {
            const generated = await timed(trace, 'generate', () => generateWithLlm(this.deps.llm!, { question: q.question, schema, choices, history: thread.history, previous }), `attempt ${attempt}`);
            tokens += generated.tokens;
            trace[trace.length - 1].tokens = generated.tokens;
            candidate = generated.sql;
          } catch (error) {
            if (!(error instanceof LlmError) || attempt > 1) throw error;
            llmDown = error;
            llmUnavailable = true;
          }
        }
        if (!this.deps.llm || llmUnavailable) {
          offline = await timed(trace, 'generate', () => generateOffline(q.question, schema, choices, thread.history), 'offline: verified queries');
          if ('reason' in offline && llmDown) throw llmDown;
          if (llmDown) assumptions.push(`the LLM was unavailable (${llmDown.message}); answered from a verified query`);
          if ('reason' in offline) {
            return {
              tokens,
              answer: makeAnswer({
                kind: 'refusal', route, trace,
                reason: `No LLM is configured, and this question needs one: ${offline.reason}.`,
                alternatives: [
                  'Ask one of the verified question types, e.g. "How many thefts were reported in 2019?" or "Which blocks had the most burglaries?"',
                  'Configure an LLM (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL) for free-form questions',
                ],
              }),
            };
          }
          candidate = offline.sql;
          assumptions.push(...offline.assumptions);
        }
        const written: string = candidate!;
        progress?.('Checking the query');
        lastSql = written;
        const verdict = await timed(trace, 'validate', () => validateSql(this.deps.pool, written, this.deps.statementTimeoutMs), `attempt ${attempt}`);
        if (verdict.ok) sql = written;
        else {
          previous = { sql: written, error: verdict.error };
          // an offline template that fails validation will fail again: stop at once
          if (!this.deps.llm || llmUnavailable) break;
        }
      }
      if (!sql) {
        return {
          tokens, sql: lastSql,
          answer: makeAnswer({
            kind: 'error', route, trace, retryable: false,
            message: `I could not write a valid query for this after ${this.deps.llm ? MAX_ATTEMPTS : 1} attempt${this.deps.llm ? 's' : ''}. The last problem: ${previous?.error ?? 'unknown'} Try rephrasing, or ask for something narrower.`,
          }),
        };
      }

      const validSql = sql;
      progress?.('Running the query');
      const result = await timed(trace, 'run', () => runSql(this.deps.pool, validSql, this.deps.statementTimeoutMs));
      progress?.('Writing the answer');
      let narrationTokens = 0;
      const narration = await timed(trace, 'synthesize', async () => {
        const plain = narrate(result);
        if (!this.deps.llm || result.rowCount === 0) return { text: plain, note: undefined as string | undefined };
        try {
          const { text, usage } = await this.deps.llm.chatText({
            system: 'You report query results faithfully and briefly.',
            user: renderPrompt('sql-narrate', {
              question: q.question, columns: result.columns.join(', '), shown: String(result.rows.length), total: String(result.rowCount),
              rows: result.rows.slice(0, 20).map((r) => r.map((c) => String(c)).join(' | ')).join('\n'),
            }),
          });
          tokens += usage.promptTokens + usage.completionTokens;
          narrationTokens = usage.promptTokens + usage.completionTokens;
          const bad = uncheckedNumbers(text, result, q.question);
          if (bad.length) return { text: plain, note: `the LLM narration used numbers not in the result (${bad.join(', ')}); replaced by the deterministic one` };
          return { text: text.trim(), note: undefined };
        } catch (error) {
          return { text: plain, note: `the LLM narration failed (${describeError(error)}); deterministic narration used` };
        }
      });
      if (narrationTokens) trace[trace.length - 1].tokens = narrationTokens;
      if (narration.note) trace.push({ node: 'synthesize.check', ms: 0, note: narration.note });

      await this.deps.memory.update(q.threadId, (s) => {
        s.pending = undefined;
        s.history.push({
          question: q.question, sql: validSql,
          ...(offline && !('reason' in offline) ? { verifiedId: offline.verifiedId, slots: offline.slots, basis: offline.basis } : {}),
        });
      });
      const headline = narration.text.split(/(?<=\.)\s/)[0];
      return {
        tokens, sql: validSql, result,
        answer: makeAnswer({
          kind: 'result', route, trace,
          headline,
          narration: narration.text,
          sql: [validSql],
          table: {
            // years, months and hours are labels: as text, no renderer formats them as quantities
            columns: result.columns.map(humanize),
            rows: result.rows.slice(0, this.deps.displayRows).map((row) => row.map((c, i) => (typeof c === 'number' && TIME_COLUMN.test(result.columns[i]) ? String(c) : c))),
            rowCount: result.rowCount, truncated: result.rowCount > this.deps.displayRows,
          },
          chart: chooseChart(result, q.question.length > 80 ? `${q.question.slice(0, 77)}...` : q.question),
          assumptions,
          notes: narration.note ? [narration.note] : [],
        }),
      };
    } catch (error) {
      return { tokens, sql: lastSql, answer: this.failure(error, trace) };
    }
  }

  /** A click on a clarification option: store the choice, then answer the waiting question. */
  async choose(threadId: string, term: string, optionId: string, progress?: (step: string) => void): Promise<SqlOutcome> {
    const state = await this.deps.memory.get(threadId);
    if (!option(term, optionId)) {
      return { tokens: 0, answer: makeAnswer({ kind: 'error', route, trace: [], retryable: false, message: `"${optionId}" is not an option of ${term}.` }) };
    }
    await this.deps.memory.update(threadId, (s) => (s.clarifications[term] = optionId));
    if (!state.pending) {
      return { tokens: 0, answer: makeAnswer({ kind: 'error', route, trace: [], retryable: false, message: `Noted: ${term} means ${option(term, optionId)!.label} in this thread. There is no question waiting for it; ask away.` }) };
    }
    return this.ask({ question: state.pending.question, threadId }, progress);
  }

  private failure(error: unknown, trace: TraceStep[]): Answer {
    if (error instanceof QueryTimeoutError) {
      return makeAnswer({ kind: 'error', route, trace, retryable: true, message: `${error.message}. Try a narrower question, e.g. one year or one district instead of all of them.` });
    }
    if (error instanceof LlmError) {
      return makeAnswer({ kind: 'error', route, trace, retryable: error.retryable, message: `The language model could not help with this just now: ${error.message}. Questions of the verified types still work; try again later for others.` });
    }
    this.deps.logger.error(`sql agent failed: ${describeError(error)}`);
    return makeAnswer({ kind: 'error', route, trace, retryable: true, message: 'Something went wrong answering this question; it has been logged. Please try again.' });
  }
}
