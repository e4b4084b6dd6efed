// What running a digest needs in a process: the content (the desk and the
// backtest agent) and a delivery for each platform the process has
// credentials for. `serve` (the scheduler, and its workers) and `datadesk
// worker` build it the same way.
import type { WebClient } from '@slack/web-api';
import type { CloudAdapter } from 'botbuilder';
import type { DataDesk } from '../agents/desk.js';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/database.js';
import { llmFromConfig } from '../llm/from-config.js';
import { digestContent } from './digest-content.js';
import { slackDelivery, teamsDelivery, type Deliver } from './delivery.js';
import type { DigestContent, Platform } from './scheduler.js';

export interface DigestDeps {
  content: DigestContent;
  deliver: Partial<Record<Platform, Deliver>>;
}

export function digestDeps(
  config: Config, db: Database, desk: DataDesk, logger: Logger,
  platforms: { slack?: WebClient; teams?: { adapter: CloudAdapter; appId: string }; chartLink: (png: Buffer) => string },
): DigestDeps {
  const deliver: DigestDeps['deliver'] = {};
  if (platforms.slack) deliver.slack = slackDelivery(platforms.slack, config.quickchartUrl);
  if (platforms.teams) deliver.teams = teamsDelivery(platforms.teams.adapter, platforms.teams.appId, db.write, platforms.chartLink, config.quickchartUrl);
  const content = digestContent(db.read, desk, { pool: db.read, statementTimeoutMs: config.statementTimeoutMs, logger, llm: llmFromConfig(config) });
  return { content, deliver };
}
