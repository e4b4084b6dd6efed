// What running a digest needs in a process: the content (the desk and the
// backtest agent) and the outbox of each chat platform the process is
// configured for (channels/platforms.ts builds them). `serve` (the scheduler,
// and its workers) and `datadesk worker` build it the same way.
import type { DataDesk } from '../agents/desk.js';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import type { JobOutbox } from '../jobs/answer-worker.js';
import type { Database } from '../db/database.js';
import { llmFromConfig } from '../llm/from-config.js';
import { digestContent } from './digest-content.js';
import { BacktestRuns } from '../backtest/run-id.js';
import type { DigestContent, Platform } from './scheduler.js';

export interface DigestDeps {
  content: DigestContent;
  deliver: Partial<Record<Platform, JobOutbox>>;
}

export function digestDeps(
  config: Config,
  db: Database,
  desk: DataDesk,
  logger: Logger,
  posters: Partial<Record<Platform, JobOutbox>>,
): DigestDeps {
  const content = digestContent(db.read, desk, {
    pool: db.read,
    statementTimeoutMs: config.statementTimeoutMs,
    logger,
    llm: llmFromConfig(config),
    // a backtest watch's runs are kept like any backtest's, so the run id under a digest reruns
    runs: new BacktestRuns(db.write),
  });
  return { content, deliver: posters };
}
