// The job runtime on a test database: the queue, and workers replying through
// the given platform clients, as `serve` wires them. Stop it in afterAll.
import type { WebClient } from '@slack/web-api';
import type { CloudAdapter } from 'botbuilder';
import type { DataDesk } from '../../src/agents/desk.js';
import type { Logger } from '../../src/core/logger.js';
import { replySinks } from '../../src/channels/reply-sinks.js';
import { startJobs, type JobSettings, type Jobs } from '../../src/jobs/runtime.js';
import type { TestDatabase } from './database.js';

export interface TestJobsOptions {
  slack?: WebClient;
  teams?: { adapter: CloudAdapter; appId: string };
  chartLink?: (png: Buffer) => string;
  settings?: Partial<JobSettings>;
  work?: boolean;
  reapEveryMs?: number;
  unstartedAfterSeconds?: number;
  /** table answers offer "Download CSV" */
  exports?: boolean;
  exportLink?: (token: string) => string;
}

export async function testJobs(db: TestDatabase, desk: DataDesk, logger: Logger, o: TestJobsOptions = {}): Promise<Jobs> {
  return startJobs({
    pool: db.pool, desk, logger, work: o.work ?? true, reapEveryMs: o.reapEveryMs, unstartedAfterSeconds: o.unstartedAfterSeconds,
    settings: { concurrency: 2, perUser: 1, perChannel: 3, retries: 3, ...o.settings },
    sinks: replySinks({ pool: db.pool, logger, slack: o.slack, teams: o.teams, chartLink: o.chartLink ?? (() => 'http://127.0.0.1/none.png'), exports: o.exports, exportLink: o.exportLink }),
  });
}
