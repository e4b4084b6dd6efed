// The six-node SQL agent: relevance (the desk's gate) -> schema -> generate ->
// validate (back to generate with the error, at most 3 attempts) -> run ->
// synthesize. Each node is a file under nodes/, a function of the shared
// state; the graph runner times every node into the answer's trace. Ambiguous
// glossary terms are settled from thread memory, the workspace defaults, or a
// clarifying question before anything is generated.
import type { ProgressReporter } from '../../core/progress.js';
import type { Answer, TraceStep } from '../../core/answer.js';
import { makeAnswer } from '../../core/answer.js';
import { describeError } from '../../core/errors.js';
import { runGraph, type GraphNode } from '../../core/graph.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../db/errors.js';
import { QueryTimeoutError, QueryTooBigError } from '../../db/read-only.js';
import { LlmError } from '../../llm/client.js';
import { glossary, option } from '../../knowledge/glossary.js';
import type { QueryResult } from '../../core/result-shape.js';
import { introspectSchema, type SchemaInfo } from './schema.js';
import type { SqlAgentDeps, SqlNodeName, SqlState } from './state.js';
import { generateNode } from './nodes/generate-node.js';
import { runNode } from './nodes/run-node.js';
import { schemaNode } from './nodes/schema-node.js';
import { synthesizeNode } from './nodes/synthesize-node.js';
import { validateNode } from './nodes/validate-node.js';
import type { PlanContext } from './plan-types.js';
import { withDeadline } from '../../llm/deadline.js';
import type pg from 'pg';

export async function readPlanContext(pool: pg.Pool): Promise<PlanContext> {
  const areas = await pool.query<{ community_area: number; name: string }>(
    'SELECT community_area, name FROM community_areas ORDER BY community_area',
  );
  const range = await pool.query<{ first: string | null; last: string | null }>(
    'SELECT min(date)::date AS first, max(date)::date AS last FROM crimes',
  );
  const today = new Date().toISOString().slice(0, 10);
  return {
    areas: new Map(areas.rows.map((r) => [r.name.toLowerCase(), r.community_area])),
    areaNames: new Map(areas.rows.map((r) => [r.community_area, r.name])),
    earliestDate: range.rows[0].first ?? today,
    latestDate: range.rows[0].last ?? today,
  };
}

export type { SqlAgentDeps } from './state.js';

export interface SqlQuestion {
  question: string;
  /** a thread id unique across platforms and workspaces (see core/platform.ts ThreadRef) */
  threadId: string;
  /** a plan to answer as is (a follow-up button's), instead of reading the question */
  plan?: Record<string, unknown>;
  /** whose verified pairs answer it (see core/platform.ts Workspace) */
  workspace?: string;
}

export interface SqlOutcome {
  answer: Answer;
  sql?: string;
  result?: QueryResult;
  tokens: number;
}

const route = 'sql' as const;

/** The graph: schema -> generate -> validate (-> generate, at most 3 attempts) -> run -> synthesize. */
const NODES: Record<SqlNodeName, GraphNode<SqlState, SqlNodeName>> = {
  schema: schemaNode,
  generate: generateNode,
  validate: validateNode,
  run: runNode,
  synthesize: synthesizeNode,
};

/** How long the data's date range is trusted before it is read again (the portal sync adds days). */
const PLAN_CONTEXT_TTL_MS = 10 * 60_000;

export class SqlAgent {
  private schema?: Promise<SchemaInfo>;
  private planContext?: { at: number; value: Promise<PlanContext> };

  constructor(private readonly deps: SqlAgentDeps) {}

  /** The schema, introspected once (a new agent after a migration sees the new one). */
  schemaInfo(): Promise<SchemaInfo> {
    this.schema ??= introspectSchema(this.deps.pool).catch((error) => {
      this.schema = undefined;
      throw error;
    });
    return this.schema;
  }

  /** The reader's context: area names and the data's first and last day. */
  loadPlanContext(): Promise<PlanContext> {
    if (!this.planContext || Date.now() - this.planContext.at > PLAN_CONTEXT_TTL_MS) {
      const value = readPlanContext(this.deps.pool).catch((error) => {
        this.planContext = undefined;
        throw error;
      });
      this.planContext = { at: Date.now(), value };
    }
    return this.planContext.value;
  }

  async ask(q: SqlQuestion, progress?: ProgressReporter): Promise<SqlOutcome> {
    // one deadline for the model's calls of this question
    const deps = this.deps.llm ? { ...this.deps, llm: withDeadline(this.deps.llm, this.deps.answerDeadlineMs ?? 30_000) } : this.deps;
    const state: SqlState = {
      deps,
      question: q.question,
      givenPlan: q.plan,
      threadId: q.threadId,
      workspace: q.workspace,
      thread: await this.deps.memory.get(q.threadId),
      progress,
      loadSchema: () => this.schemaInfo(),
      loadPlanContext: () => this.loadPlanContext(),
      choices: {},
      assumptions: [],
      attempt: 0,
      llmUnavailable: false,
      tokens: 0,
      trace: [],
    };
    try {
      await runGraph(NODES, 'schema', state);
    } catch (error) {
      return { tokens: state.tokens, sql: state.candidate, answer: this.failure(error, state.trace) };
    }
    // the answer was made inside its node, before that node's own step was traced
    const answer = { ...state.answer!, trace: state.trace };
    return {
      tokens: state.tokens,
      sql: state.sql ?? state.candidate,
      result: state.answer?.kind === 'result' ? state.result : undefined,
      answer,
    };
  }

  /** A click on a clarification option: store the choice, then answer the waiting question. */
  async choose(threadId: string, term: string, optionId: string, progress?: ProgressReporter, workspace?: string): Promise<SqlOutcome> {
    const state = await this.deps.memory.get(threadId);
    if (!option(term, optionId)) {
      const known = glossary().find((t) => t.id === term);
      const message = known?.options?.length
        ? `"${optionId}" is not an option of ${term}. The options: ${known.options.map((o) => `${o.id} (${o.label})`).join(', ')}.`
        : `"${term}" is not a term that takes a choice. The terms: ${glossary()
            .filter((t) => t.options?.length)
            .map((t) => t.id)
            .join(', ')}.`;
      return { tokens: 0, answer: makeAnswer({ kind: 'error', route, trace: [], retryable: false, message }) };
    }
    await this.deps.memory.update(threadId, (s) => (s.clarifications[term] = optionId));
    if (!state.pending) {
      return {
        tokens: 0,
        answer: makeAnswer({
          kind: 'error',
          route,
          trace: [],
          retryable: false,
          message: `Noted: ${glossary().find((t) => t.id === term)?.label ?? term} means ${option(term, optionId)!.label} in this thread. There is no question waiting for it; ask away.`,
        }),
      };
    }
    return this.ask({ question: state.pending.question, threadId, workspace }, progress);
  }

  private failure(error: unknown, trace: TraceStep[]): Answer {
    if (error instanceof QueryTimeoutError) {
      return makeAnswer({
        kind: 'error',
        route,
        trace,
        retryable: true,
        message: `${error.message}. Try a narrower question, e.g. one year or one district instead of all of them.`,
      });
    }
    if (error instanceof QueryTooBigError) {
      return makeAnswer({
        kind: 'error',
        route,
        trace,
        retryable: false,
        message: `${error.message}. Narrow the question: fewer columns, one year or one area, or a count instead of a list.`,
      });
    }
    if (isDatabaseUnavailable(error)) {
      this.deps.logger.warn(`sql agent: database unavailable: ${describeError(error)}`);
      return makeAnswer({ kind: 'error', route, trace, retryable: true, message: DATABASE_UNAVAILABLE_MESSAGE });
    }
    if (error instanceof LlmError) {
      return makeAnswer({
        kind: 'error',
        route,
        trace,
        retryable: error.retryable,
        message: `The language model could not help with this just now: ${error.message}. Questions of the verified types still work; try again later for others.`,
      });
    }
    this.deps.logger.error(`sql agent failed: ${describeError(error)}`);
    return makeAnswer({
      kind: 'error',
      route,
      trace,
      retryable: true,
      message: 'Something went wrong answering this question; it has been logged. Please try again.',
    });
  }
}
