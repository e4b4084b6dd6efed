// The reply sinks a worker process has: one per platform it is configured
// for (Slack needs a bot token, Teams an adapter); the playground's needs
// nothing but the database, so every worker takes those questions.
import type { WebClient } from '@slack/web-api';
import type { CloudAdapter } from 'botbuilder';
import type pg from 'pg';
import type { Logger } from '../core/logger.js';
import type { ReplyPlatform } from '../jobs/answer-job.js';
import type { SinkFactory } from '../jobs/answer-worker.js';
import { Deliveries } from '../jobs/deliveries.js';
import { slackReplySink } from './slack/slack-reply-sink.js';
import { teamsReplySink } from './teams/teams-reply-sink.js';
import { webReplySink } from './web/web-reply-sink.js';

export interface ReplySinkOptions {
  pool: pg.Pool;
  logger: Logger;
  slack?: WebClient;
  teams?: { adapter: CloudAdapter; appId: string };
  /** a URL under which this PNG is served (chart store + GET /charts), for Teams cards */
  chartLink: (png: Buffer) => string;
  quickchartUrl?: string;
  /** answers with a table offer "Download CSV" */
  exports?: boolean;
  /** where a Teams card's CSV link points, for a delivery's export token */
  exportLink?: (token: string) => string;
}

export function replySinks(o: ReplySinkOptions): Partial<Record<ReplyPlatform, SinkFactory>> {
  const deliveries = new Deliveries(o.pool);
  const sinks: Partial<Record<ReplyPlatform, SinkFactory>> = { web: webReplySink(o.pool, o.logger) };
  if (o.slack) sinks.slack = slackReplySink({ client: o.slack, deliveries, logger: o.logger, quickchartUrl: o.quickchartUrl, exports: o.exports });
  if (o.teams) sinks.teams = teamsReplySink({ ...o.teams, deliveries, chartLink: o.chartLink, logger: o.logger, quickchartUrl: o.quickchartUrl, exportLink: o.exports ? o.exportLink : undefined });
  return sinks;
}
