// The platforms a process is configured for, built once from the
// configuration: each one's outbox (replies to questions and digest posts) and
// what its receiver needs. `serve` and `datadesk worker` both build it here,
// so adding a platform means one outbox and one entry below.
import type { CloudAdapter } from 'botbuilder';
import { WebClient } from '@slack/web-api';
import type pg from 'pg';
import type { Config } from '../config/env.js';
import type { ChartSpec } from '../core/answer.js';
import type { Logger } from '../core/logger.js';
import type { ChatPlatform, ReplyPlatform } from '../core/platform.js';
import type { JobOutbox } from '../jobs/answer-worker.js';
import { Deliveries } from '../jobs/deliveries.js';
import { clientOptionsOf } from './slack/slack-app.js';
import { installedClients, singleTokenClients, type SlackClients } from './slack/slack-clients.js';
import { createSlackInstaller, type SlackInstaller } from './slack/slack-install.js';
import { StreamSupport } from './slack/answer-stream.js';
import { slackOutbox } from './slack/slack-outbox.js';
import { createTeamsAdapter, type TeamsCredentials } from './teams/teams-adapter.js';
import { teamsOutbox } from './teams/teams-outbox.js';
import { webOutbox } from './web/web-outbox.js';

export interface PlatformOptions {
  config: Config;
  /** the app's pool (deliveries, installations, conversation references) */
  pool: pg.Pool;
  logger: Logger;
  /** Teams: the credentials to send with (a receiver's mode decides them; a worker takes config.teams as it is); none: no Teams */
  teams?: TeamsCredentials;
  /** feedback is kept (the verified store is there): Slack answers carry 👍/👎 feedback_buttons */
  feedback?: boolean;
  /** a URL under which this PNG is served (chart store + GET /charts), for Teams cards */
  chartLink: (png: Buffer, base?: string) => string;
  /** a URL under which this chart is drawn for a Teams card when first fetched (ChartStore.putLater) */
  chartLater?: (spec: ChartSpec, base?: string) => string;
  /** where a card's CSV link points, for a delivery's export token; absent: no Download CSV */
  exportLink?: (token: string, base?: string) => string;
  /** OAuth installs redirect here after Slack (PUBLIC_BASE_URL + /slack/oauth_redirect), when known */
  slackRedirectUri?: string;
}

export interface Platforms {
  /** every platform this process can reply to; the playground's is always there */
  outboxes: Partial<Record<ReplyPlatform, JobOutbox>>;
  /** the chat platforms this process can post digests to (their outboxes make new channel posts) */
  posters: Partial<Record<ChatPlatform, JobOutbox>>;
  slack?: { clients: SlackClients; installer?: SlackInstaller };
  teams?: { adapter: CloudAdapter; appId: string };
}

export function configuredPlatforms(o: PlatformOptions): Platforms {
  const { config, pool, logger } = o;
  const deliveries = new Deliveries(pool);
  const platforms: Platforms = { outboxes: { web: webOutbox(pool, logger) }, posters: {} };
  const exports = Boolean(o.exportLink);
  if (config.slack) {
    const clientOptions = clientOptionsOf(config.slack);
    const installer = config.slack.oauth
      ? createSlackInstaller({ oauth: config.slack.oauth, pool, logger, clientOptions, redirectUri: o.slackRedirectUri })
      : undefined;
    const clients = installer
      ? installedClients(installer.store, clientOptions)
      : singleTokenClients(new WebClient(config.slack.botToken, clientOptions));
    platforms.slack = { clients, installer };
    const outbox = slackOutbox({
      clients,
      deliveries,
      logger,
      quickchartUrl: config.quickchartUrl,
      exports,
      feedback: o.feedback,
      streams: new StreamSupport(config.slack.streaming),
    });
    platforms.outboxes.slack = outbox;
    platforms.posters.slack = outbox;
  }
  if (o.teams) {
    const adapter = createTeamsAdapter(o.teams, logger);
    platforms.teams = { adapter, appId: o.teams.appId };
    const outbox = teamsOutbox({
      adapter,
      appId: o.teams.appId,
      pool,
      deliveries,
      chartLink: o.chartLink,
      chartLater: o.chartLater,
      publicBase: Boolean(config.publicBaseUrl),
      logger,
      quickchartUrl: config.quickchartUrl,
      exportLink: o.exportLink,
    });
    platforms.outboxes.teams = outbox;
    platforms.posters.teams = outbox;
  }
  return platforms;
}
