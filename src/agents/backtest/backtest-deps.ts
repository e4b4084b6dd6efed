// What the backtest agent needs and gives, in a file of its own so the answer
// builders (portfolio-answer.ts) can name them without importing the agent.
import type pg from 'pg';
import type { Answer } from '../../core/answer.js';
import type { Logger } from '../../core/logger.js';
import type { BacktestRuns } from '../../backtest/run-id.js';
import type { SpecResult } from '../../backtest/run-spec.js';
import type { StrategySpec } from '../../backtest/spec.js';
import type { LlmClient } from '../../llm/client.js';

export interface BacktestDeps {
  pool: pg.Pool;
  statementTimeoutMs: number;
  logger: Logger;
  llm?: LlmClient;
  /** where runs are kept for `rerun ID` (the app's pool); absent: answers carry their id but cannot be rerun by it */
  runs?: BacktestRuns;
  /** whose runs: the asker's workspace or scope (knowledge/scope.ts); `rerun ID` finds only runs made there */
  workspace?: string;
  /** PUBLIC_BASE_URL: a kept run's id is also a link (server/run-routes.ts), which Slack unfurls into its parameters */
  publicBaseUrl?: string;
}

/** The answer, and for evaluation the spec as read and the engine's result. */
export interface BacktestOutcome {
  answer: Answer;
  spec?: StrategySpec;
  result?: SpecResult;
  /** the run's id (see backtest/run-id.ts) */
  runId?: string;
}
