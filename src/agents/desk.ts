// The bot core behind every channel: one inbound message -> the relevance gate
// -> the SQL agent or the backtest agent (or help, or a refusal) -> one Answer,
// recorded in the audit log. Channels never see the agents' insides.
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import { makeAnswer } from '../core/answer.js';
import { recordQuestion } from '../audit/audit-log.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../db/errors.js';
import { runBacktest, type ProgressReporter } from './backtest/agent.js';
import { RULE_SYNTAX_HELP } from './backtest/help.js';
import { guideFor } from './help.js';
import { createRouter, refusedOutright, type Route } from './router.js';
import { readInThread } from '../plan/reader.js';
import { lastAnswerPlan } from './sql/plan-path.js';
import { withDeadline } from '../llm/deadline.js';
import { SqlAgent, type SqlAgentDeps } from './sql/agent.js';
import type { VerifiedStore } from '../verified/verified-store.js';
import type { ThreadRef } from '../core/platform.js';
import { BacktestRuns } from '../backtest/run-id.js';
import { scopeOf } from '../knowledge/scope.js';
import { withRerunNote, type RerunBaseline } from '../core/rerun.js';

/** One message as the desk reads it: the thread it is in (see core/platform.ts ThreadRef), its words and who said them. */
export interface InboundMessage extends ThreadRef {
  text: string;
  userId?: string;
  /** the message is a /backtest command: no routing */
  kind?: 'question' | 'backtest';
  /** a follow-up button's plan: the edit of the answer it sat under, asked as is (checked like a model's plan) */
  plan?: Record<string, unknown>;
  /** a Re-run of an earlier answer of this plan: its numbers then; the answer says what changed since (core/rerun.ts) */
  rerun?: RerunBaseline;
}

/** What the SQL agent needs, with the pools split: agents read (a replica, maybe), the audit log writes. */
export interface DeskDeps extends Omit<SqlAgentDeps, 'pool'> {
  readPool: pg.Pool;
  writePool: pg.Pool;
  /** PUBLIC_BASE_URL: a backtest answer's run id is also a link to the run (server/run-routes.ts) */
  publicBaseUrl?: string;
}

export class DataDesk {
  readonly sql: SqlAgent;
  /** the pairs people vouched for (feedback promotes into it) */
  get verified(): VerifiedStore | undefined {
    return this.deps.verified;
  }
  private router?: (text: string) => Route;
  /** backtest runs, kept for `rerun ID` (the app's pool: the reader login cannot write) */
  private readonly runs: BacktestRuns;

  constructor(private readonly deps: DeskDeps) {
    const { readPool, writePool, publicBaseUrl: _publicBaseUrl, ...shared } = deps;
    this.sql = new SqlAgent({ ...shared, pool: readPool });
    this.runs = new BacktestRuns(writePool);
  }

  private async route(text: string): Promise<Route> {
    if (!this.router) {
      const schema = await this.sql.schemaInfo();
      this.router = createRouter([...schema.areas.keys()]);
    }
    return this.router(text);
  }

  async answer(message: InboundMessage, progress?: ProgressReporter): Promise<Answer> {
    try {
      return await this.answerOrThrow(message, progress);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.deps.logger.warn(`desk: ${(error as Error).message}`);
      return makeAnswer({
        kind: 'error',
        route: message.kind === 'backtest' ? 'backtest' : 'sql',
        trace: [],
        retryable: true,
        message: DATABASE_UNAVAILABLE_MESSAGE,
      });
    }
  }

  private async answerOrThrow(message: InboundMessage, progress?: ProgressReporter): Promise<Answer> {
    const started = performance.now();
    const text = message.text.trim();
    let routed: Route = message.kind === 'backtest' ? 'backtest' : message.plan ? 'sql' : await this.route(text);
    if ((routed === 'reject' || routed === 'refuse_write') && !refusedOutright(text)) {
      // the one follow-up rule decides: a fragment that edits the thread's last answer ("and in 2020?", "only
      // arrests") is about the data, and so is a question the reader reads whole, however it is spelled; a
      // write word is a write unless the whole text reads as an edit of the last answer ("drop the year filter")
      const { history } = await this.deps.memory.get(message.threadId);
      const before = lastAnswerPlan(history.slice(0, -1));
      const reading = readInThread(text, lastAnswerPlan(history), await this.sql.loadPlanContext(), before);
      if (routed === 'refuse_write' ? reading.ok && reading.edit : reading.ok || (reading.edit && reading.edits.length)) routed = 'sql';
    }
    const gate = { node: 'relevance', ms: Math.round((performance.now() - started) * 1000) / 1000, note: routed };
    let answer: Answer;
    let sql: string | undefined;
    let rowCount: number | undefined;
    let tokens = 0;
    switch (routed) {
      case 'help':
        answer = makeAnswer({
          kind: 'result',
          route: 'help',
          trace: [gate],
          headline: 'What I can do',
          narration: guideFor(message.platform),
          sql: [],
          assumptions: [],
          notes: [],
        });
        break;
      case 'refuse_write':
        answer = makeAnswer({
          kind: 'refusal',
          route: 'reject',
          trace: [gate],
          reason: 'I only read data; I never change, add or delete it.',
          alternatives: ['Ask a question about the data instead, e.g. "How many thefts were reported in 2019?"'],
        });
        break;
      case 'reject':
        answer = makeAnswer({
          kind: 'refusal',
          route: 'reject',
          trace: [gate],
          reason:
            'That is outside what I know: I answer questions about Chicago crime data and run backtests of A-share trading strategies.',
          alternatives: ['Say "help" for example questions'],
        });
        break;
      case 'backtest': {
        if (/^\s*help\s*$/i.test(text)) {
          answer = makeAnswer({
            kind: 'result',
            route: 'backtest',
            trace: [gate],
            headline: 'Backtest rule syntax',
            narration: RULE_SYNTAX_HELP,
            sql: [],
            assumptions: [],
            notes: [],
          });
          break;
        }
        // the same deadline as a crime question's model calls: a hung model held a backtest for 244 s
        const llm = this.deps.llm ? withDeadline(this.deps.llm, this.deps.answerDeadlineMs ?? 30_000) : undefined;
        const outcome = await runBacktest(
          text,
          {
            pool: this.deps.readPool,
            statementTimeoutMs: this.deps.statementTimeoutMs,
            logger: this.deps.logger,
            llm,
            runs: this.runs,
            workspace: scopeOf(message.platform, message.workspace),
            publicBaseUrl: this.deps.publicBaseUrl,
          },
          progress,
        );
        answer = { ...outcome.answer, trace: [gate, ...outcome.answer.trace] };
        sql = outcome.answer.kind === 'result' ? outcome.answer.sql.join(';\n') : undefined;
        rowCount = outcome.result?.candidates.length;
        break;
      }
      case 'sql': {
        const outcome = await this.sql.ask(
          { question: text, threadId: message.threadId, plan: message.plan, workspace: scopeOf(message.platform, message.workspace) },
          progress,
        );
        answer = { ...outcome.answer, trace: [gate, ...outcome.answer.trace] };
        if (message.rerun && message.plan) answer = withRerunNote(answer, message.rerun);
        ({ sql, tokens } = outcome);
        rowCount = outcome.result?.rowCount;
        break;
      }
    }
    if (answer.kind === 'clarify' && message.userId) {
      // a click on the choice is checked against the person who asked
      await this.deps.memory.update(message.threadId, (s) => s.pending && (s.pending.userId = message.userId));
    }
    await recordQuestion(
      this.deps.writePool,
      { ...message, question: text, thread: message.threadId, answer, sql, rowCount, tokens },
      this.deps.logger,
    );
    return answer;
  }

  /** The clarification a thread is waiting for, if any (for channels to check a click). */
  async pendingChoice(threadId: string): Promise<{ term: string; userId?: string } | undefined> {
    return (await this.deps.memory.get(threadId)).pending;
  }

  /** A clarification choice from a button or card action. */
  async choose(message: Omit<InboundMessage, 'text'>, term: string, optionId: string, progress?: ProgressReporter): Promise<Answer> {
    const outcome = await this.sql.choose(message.threadId, term, optionId, progress, scopeOf(message.platform, message.workspace));
    await recordQuestion(
      this.deps.writePool,
      {
        ...message,
        question: `(choice ${term}=${optionId})`,
        thread: message.threadId,
        answer: outcome.answer,
        sql: outcome.sql,
        rowCount: outcome.result?.rowCount,
        tokens: outcome.tokens,
      },
      this.deps.logger,
    );
    return outcome.answer;
  }
}
