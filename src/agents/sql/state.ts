// What the SQL agent's nodes share: the question, the thread, what each node
// found, and the answer when one is ready.
import type pg from 'pg';
import type { VerifiedStore } from '../../verified/verified-store.js';
import type { Answer } from '../../core/answer.js';
import type { GraphState } from '../../core/graph.js';
import type { Logger } from '../../core/logger.js';
import type { ProgressReporter } from '../../core/progress.js';
import type { LlmClient } from '../../llm/client.js';
import type { ThreadMemory, ThreadState } from '../../memory/thread-memory.js';
import type { QueryResult } from '../../core/result-shape.js';
import type { SchemaInfo } from './schema.js';
import type { QueryPlan } from '../../plan/query-plan.js';
import type { PlanContext, PlanOutcome } from './plan-types.js';

export interface SqlAgentDeps {
  /** the app's pool: schema introspection and the SQL our own code writes (verified queries) */
  pool: pg.Pool;
  /** the reader login's pool: the only place model-written SQL runs; verified queries use it too when there */
  reader?: pg.Pool;
  /** why there is no reader pool (said to the user when a question needs model-written SQL) */
  readerProblem?: string;
  /** the most bytes a result may send (SQL_MAX_RESULT_BYTES) */
  maxResultBytes?: number;
  logger: Logger;
  memory: ThreadMemory;
  llm?: LlmClient;
  /** ANSWER_DEADLINE_MS: every model call of one question together (default 30 s) */
  answerDeadlineMs?: number;
  statementTimeoutMs: number;
  displayRows: number;
  glossaryDefaults: Record<string, string>;
  /** question/SQL pairs people vouched for: the same words get the same query */
  verified?: VerifiedStore;
}

export type SqlNodeName = 'schema' | 'generate' | 'validate' | 'run' | 'synthesize';

export interface SqlState extends GraphState {
  deps: SqlAgentDeps;
  question: string;
  /** a plan to answer as is (a follow-up button's): checked and compiled like a model's plan, no reading */
  givenPlan?: Record<string, unknown>;
  threadId: string;
  /** whose verified pairs answer it */
  workspace?: string;
  thread: ThreadState;
  progress?: ProgressReporter;
  /** the introspected schema (cached by the agent) */
  loadSchema: () => Promise<SchemaInfo>;
  schema?: SchemaInfo;
  /** what the reader needs: the data's date range and the area names (cached by the agent) */
  loadPlanContext: () => Promise<PlanContext>;
  /** the plan the question was read into, and its parts in words ("Understood as") */
  plan?: QueryPlan;
  understood?: string[];
  /** what a model's plan changed of the reader's reading of a fragment, said as a note (model-reading.ts) */
  modelChanged?: string;
  /** what the reader made of a question it could not read whole (said if nothing else answers) */
  unread?: Extract<PlanOutcome, { kind: 'unread' }>;
  /** glossary choices in force, and the assumptions shown with the answer */
  choices: Record<string, string>;
  assumptions: string[];
  attempt: number;
  /** SQL our own code wrote (compiled from the plan, or a verified query): it may run without the reader login */
  ownSql?: string;
  /** the verified pair the question was answered with, and who vouched for it */
  verifiedBy?: string;
  /** the SQL being validated, and the last failure fed back to generation */
  candidate?: string;
  previous?: { sql: string; error: string };
  /** the LLM failed: no further attempt asks it */
  llmUnavailable: boolean;
  /** the text edits the thread's last answer (a fragment: "and in 2021?"), so the model is shown that answer */
  fragment?: boolean;
  /** the question answered, in full words: the plan's question, or on the free-SQL path the question as the model restated it */
  resolvedQuestion?: string;
  sql?: string;
  /** the query as the model (or a verified pair) wrote it, when it ran moved onto a rollup: the thread keeps this one */
  asWritten?: string;
  result?: QueryResult;
  tokens: number;
  answer?: Answer;
}
