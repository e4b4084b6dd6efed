// The job runtime on a test database: the queue, and workers replying through
// the given platform clients, as `serve` wires them. Stop it in afterAll.
import type { WebClient } from '@slack/web-api';
import type { CloudAdapter } from 'botbuilder';
import type { DataDesk } from '../../src/agents/desk.js';
import type { ChartSpec } from '../../src/core/answer.js';
import type { Logger } from '../../src/core/logger.js';
import type { ReplyPlatform } from '../../src/core/platform.js';
import { singleTokenClients, type SlackClients } from '../../src/channels/slack/slack-clients.js';
import { slackOutbox } from '../../src/channels/slack/slack-outbox.js';
import { teamsOutbox } from '../../src/channels/teams/teams-outbox.js';
import { webOutbox } from '../../src/channels/web/web-outbox.js';
import type { JobOutbox } from '../../src/jobs/answer-worker.js';
import { Deliveries } from '../../src/jobs/deliveries.js';
import { startJobs, type JobSettings, type Jobs } from '../../src/jobs/runtime.js';
import type { TestDatabase } from './database.js';

export interface TestJobsOptions {
  /** one workspace's client (SLACK_BOT_TOKEN), or the clients of installed workspaces */
  slack?: WebClient | SlackClients;
  teams?: { adapter: CloudAdapter; appId: string };
  chartLink?: (png: Buffer, base?: string) => string;
  /** Teams: a chart drawn for a card when first fetched (ChartStore.putLater), as serve wires it */
  chartLater?: (spec: ChartSpec, base?: string) => string;
  settings?: Partial<JobSettings>;
  work?: boolean;
  reapEveryMs?: number;
  unstartedAfterSeconds?: number;
  /** table answers offer "Download CSV" */
  exports?: boolean;
  /** Slack answers carry 👍/👎 feedback_buttons */
  feedback?: boolean;
  exportLink?: (token: string, base?: string) => string;
}

export async function testJobs(db: TestDatabase, desk: DataDesk, logger: Logger, o: TestJobsOptions = {}): Promise<Jobs> {
  const deliveries = new Deliveries(db.pool);
  const outboxes: Partial<Record<ReplyPlatform, JobOutbox>> = { web: webOutbox(db.pool, logger) };
  if (o.slack) {
    const clients = 'forWorkspace' in o.slack ? o.slack : singleTokenClients(o.slack);
    outboxes.slack = slackOutbox({ clients, deliveries, logger, exports: o.exports, feedback: o.feedback });
  }
  if (o.teams) {
    outboxes.teams = teamsOutbox({
      ...o.teams,
      pool: db.pool,
      deliveries,
      logger,
      chartLink: o.chartLink ?? (() => 'http://127.0.0.1/none.png'),
      chartLater: o.chartLater,
      exportLink: o.exports ? o.exportLink : undefined,
    });
  }
  return startJobs({
    pool: db.pool,
    desk,
    logger,
    work: o.work ?? true,
    reapEveryMs: o.reapEveryMs,
    unstartedAfterSeconds: o.unstartedAfterSeconds,
    settings: { concurrency: 2, perUser: 1, perChannel: 3, retries: 3, ...o.settings },
    outboxes,
  });
}

/** The Slack outbox a digest posts through, with this client (one workspace). */
export function slackPoster(client: WebClient, pool: import('pg').Pool, logger: Logger): JobOutbox {
  return slackOutbox({ clients: singleTokenClients(client), deliveries: new Deliveries(pool), logger });
}

/** The Teams outbox a digest posts through: this adapter and the conversation references stored in `pool`. */
export function teamsPoster(adapter: CloudAdapter, pool: import('pg').Pool, chartLink: (png: Buffer) => string, logger: Logger): JobOutbox {
  return teamsOutbox({ adapter, appId: '', pool, deliveries: new Deliveries(pool), chartLink, logger });
}
