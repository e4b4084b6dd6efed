// The Slack app: only wiring. HTTP mode mounts Bolt's receiver at
// POST /slack/events on the bot's own server (signatures always verified);
// Socket Mode connects out with SLACK_APP_TOKEN. Listeners live one per file
// under listeners/ and get everything they need passed in. Listeners only
// receive: questions are queued as jobs, and workers answer them (see
// slack-outbox.ts), so every event is acknowledged within milliseconds,
// once its question is in the durable queue (in both modes). With OAuth
// installs (slack-install.ts) every event is answered with the token of the
// workspace it came from; with the single SLACK_BOT_TOKEN, events of any other
// workspace are dropped.
import {
  App,
  ErrorCode,
  HTTPModuleFunctions,
  HTTPReceiver,
  type AllMiddlewareArgs,
  type BlockAction,
  type ButtonAction,
  type SlackActionMiddlewareArgs,
} from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import { boltLogger } from './bolt-logger.js';
import { QueueFirstSocketModeReceiver } from './socket-mode-receiver.js';
import { oneWorkspaceOnly } from './one-workspace.js';
import type pg from 'pg';
import type { Config } from '../../config/env.js';
import type { Logger } from '../../core/logger.js';
import { RateLimiter } from '../../core/rate-limit.js';
import type { Gate } from '../inbox.js';
import type { SlackInstaller } from './slack-install.js';
import { NoInstallationError } from './installation-store.js';
import { appUninstalled } from './listeners/app-uninstalled.js';
import type { DataDesk } from '../../agents/desk.js';
import type { AnswerQueue } from '../../jobs/queue.js';
import { Deliveries } from '../../jobs/deliveries.js';
import { StreamSupport } from './answer-stream.js';
import type { Route } from '../../server/http-server.js';
import { appHome } from './listeners/app-home.js';
import { appMention } from './listeners/app-mention.js';
import { backtestCommand } from './listeners/backtest-command.js';
import { clarifyChoice } from './listeners/clarify-choice.js';
import { datadeskCommand } from './listeners/datadesk-command.js';
import { directMessage } from './listeners/direct-message.js';
import { showSql } from './listeners/show-sql.js';
import { exportCsv } from './listeners/export-csv.js';
import { followUp } from './listeners/follow-up.js';
import { reactionAdded } from './listeners/reaction-added.js';
import { reactionRemoved } from './listeners/reaction-removed.js';
import { feedbackButton } from './listeners/feedback-button.js';
import { agentView } from './listeners/agent-view.js';
import type { VerifiedStore } from '../../verified/verified-store.js';
import { EXPORT_ACTION, FEEDBACK_ACTION, RERUN_ACTION } from './render-blocks.js';
import { rerun } from './listeners/rerun.js';
import { feedbackReason, REASON_VIEW } from './listeners/feedback-reason.js';
import type { ExportSettings } from '../../export/csv-export.js';
import { unknownAction } from './listeners/unknown-action.js';
import { linkShared } from './listeners/link-shared.js';
import { BacktestRuns } from '../../backtest/run-id.js';

export const SLACK_EVENTS_PATH = '/slack/events';

// What the app listens to, as manifests/slack/manifest.yml must subscribe to it
// (test/channels/slack/manifest.test.ts compares the two, and the listeners below).
/** Bot events, as the manifest's bot_events names them: app.message takes direct messages only (message.im). */
export const SLACK_BOT_EVENTS = [
  'app_mention',
  'app_home_opened',
  'message.im',
  'reaction_added',
  'reaction_removed',
  'app_uninstalled',
  'tokens_revoked',
  // the agent view (listeners/agent-view.ts)
  'assistant_thread_started',
  'assistant_thread_context_changed',
  // a backtest run's link unfurls into its parameters (listeners/link-shared.ts; the manifest's unfurl_domains)
  'link_shared',
] as const;
/** Slash commands the app answers; any other is acknowledged with a pointer to these. */
export const SLACK_COMMANDS = ['/backtest', '/datadesk'] as const;
/** Action ids the app handles (clarify: a prefix); any other click is acknowledged and told it is stale. */
const SLACK_ACTIONS = {
  clarify: /^clarify:/,
  followUp: /^follow_up:/,
  showSql: 'show_sql',
  rerun: RERUN_ACTION,
  exportCsv: EXPORT_ACTION,
  feedback: FEEDBACK_ACTION,
} as const;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export interface SlackAppDeps {
  config: Config;
  desk: DataDesk;
  readPool: pg.Pool;
  /** app state (digest subscriptions) */
  writePool: pg.Pool;
  /** where questions are queued for the workers */
  queue: AnswerQueue;
  logger: Logger;
  /** "Download CSV" buttons are served when given */
  exports?: ExportSettings;
  /** where 👍/👎 reactions are kept, and whose 👍 makes a question verified */
  feedback?: { verified: VerifiedStore; curators: string[] };
  /** OAuth installs (SLACK_CLIENT_ID): each workspace's token from its installation */
  installer?: SlackInstaller;
}

export interface SlackApp {
  app: App;
  /** the HTTP route of the events endpoint (HTTP mode) */
  route?: Route;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const clientOptionsOf = (slack: NonNullable<Config['slack']>): WebClientOptions | undefined =>
  slack.apiUrl ? { slackApiUrl: slack.apiUrl.endsWith('/') ? slack.apiUrl : `${slack.apiUrl}/` } : undefined;

/** Whether `error`, or an error it wraps (Bolt's and the OAuth package's `original`, or `cause`), is a `kind`. */
function causedBy(error: unknown, kind: new (...args: never[]) => Error): boolean {
  for (
    let e = error as { original?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = (e.original ?? e.cause) as typeof e, depth++
  ) {
    if (e instanceof kind) return true;
  }
  return false;
}

export function createSlackApp(deps: SlackAppDeps): SlackApp {
  const slack = deps.config.slack!;
  const logger = boltLogger(deps.logger);
  const clientOptions = clientOptionsOf(slack);
  const socketMode = Boolean(slack.appToken);
  const receiver = socketMode
    ? new QueueFirstSocketModeReceiver({ appToken: slack.appToken!, logger, clientOptions })
    : // the HTTP response waits for the listener, which returns once the question is in the durable queue (milliseconds):
      // a process killed after acknowledging has nothing left to lose, and Slack retries one killed before
      new HTTPReceiver({
        signingSecret: slack.signingSecret!,
        endpoints: SLACK_EVENTS_PATH,
        signatureVerification: true,
        processBeforeResponse: true,
        logger,
        // Bolt answers 401 to any failed authorize; one whose installation lookup failed (the database is down) is
        // answered 500 instead, a failure of ours that Slack delivers again, not a refusal of Slack's request
        processEventErrorHandler: async (args) => {
          if (
            (args.error as { code?: string }).code === ErrorCode.AuthorizationError &&
            !causedBy(args.error, NoInstallationError) &&
            !args.response.headersSent
          ) {
            args.response.writeHead(500).end();
            return false;
          }
          return HTTPModuleFunctions.defaultProcessEventErrorHandler(args);
        },
      });
  const installer = deps.installer;
  const app = installer
    ? new App({ authorize: (source) => installer.provider.authorize(source), receiver, clientOptions, logger })
    : new App({ token: slack.botToken, receiver, clientOptions, logger });
  if (!installer) app.use(oneWorkspaceOnly(deps.logger));

  const replyDeps = {
    queue: deps.queue,
    deliveries: new Deliveries(deps.writePool),
    desk: deps.desk,
    logger: deps.logger,
    streams: new StreamSupport(slack.streaming),
  };
  const gate: Gate = {
    userLimit: new RateLimiter(deps.config.rateLimits.userPerMinute, Date.now, deps.config.rateLimits.userBurst),
    channelLimit: new RateLimiter(deps.config.rateLimits.channelPerMinute),
    allowedChannels: slack.allowedChannels,
    // the workspaces are those that installed the app (or the token's own)
    allowedWorkspaces: [],
  };
  // the agent view's threads first: its middleware takes their messages, and passes every other on
  app.assistant(agentView(replyDeps, gate));
  app.event('app_mention' satisfies (typeof SLACK_BOT_EVENTS)[number], appMention(replyDeps, gate));
  app.message(directMessage(replyDeps, gate)); // message.im
  if (deps.feedback) {
    const keeper = { pool: deps.writePool, deliveries: replyDeps.deliveries, logger: deps.logger, ...deps.feedback };
    app.event('reaction_added' satisfies (typeof SLACK_BOT_EVENTS)[number], reactionAdded(keeper));
    app.event('reaction_removed' satisfies (typeof SLACK_BOT_EVENTS)[number], reactionRemoved(keeper));
  }
  app.event('app_home_opened' satisfies (typeof SLACK_BOT_EVENTS)[number], appHome(deps.readPool, deps.logger, deps.desk.verified));
  const removal = appUninstalled({ pool: deps.writePool, store: installer?.store, logger: deps.logger });
  app.event('app_uninstalled' satisfies (typeof SLACK_BOT_EVENTS)[number], removal.uninstalled);
  app.event('tokens_revoked' satisfies (typeof SLACK_BOT_EVENTS)[number], removal.tokensRevoked);
  app.event(
    'link_shared' satisfies (typeof SLACK_BOT_EVENTS)[number],
    linkShared({
      runs: new BacktestRuns(deps.writePool),
      publicHost: deps.config.publicBaseUrl && new URL(deps.config.publicBaseUrl).host.toLowerCase(),
      logger: deps.logger,
    }),
  );
  // every handled action is listed once here; the catch-all below answers the rest
  const handled: (string | RegExp)[] = [];
  type ButtonListener = (args: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => Promise<void>;
  const onAction = (id: string | RegExp, listener: ButtonListener) => {
    handled.push(id);
    app.action<BlockAction<ButtonAction>>(id, listener);
  };
  onAction(SLACK_ACTIONS.clarify, clarifyChoice(replyDeps));
  onAction(SLACK_ACTIONS.showSql, showSql());
  onAction(SLACK_ACTIONS.followUp, followUp(replyDeps, gate));
  onAction(SLACK_ACTIONS.rerun, rerun(replyDeps, gate));
  if (deps.feedback) {
    const feedback = { pool: deps.writePool, deliveries: replyDeps.deliveries, logger: deps.logger, ...deps.feedback };
    handled.push(SLACK_ACTIONS.feedback);
    app.action<BlockAction>(SLACK_ACTIONS.feedback, feedbackButton(feedback));
    app.view(REASON_VIEW, feedbackReason(feedback));
  }
  if (deps.exports)
    onAction(SLACK_ACTIONS.exportCsv, exportCsv({ deliveries: replyDeps.deliveries, exports: deps.exports, logger: deps.logger }));
  app.command('/backtest' satisfies (typeof SLACK_COMMANDS)[number], backtestCommand(replyDeps, gate));
  app.command('/datadesk' satisfies (typeof SLACK_COMMANDS)[number], datadeskCommand(deps.writePool, deps.config.scheduleTimezone));
  // every action and command is acknowledged, handled or not: Slack shows an error after 3 s otherwise
  app.action(
    new RegExp(`^(?!${handled.map((id) => (typeof id === 'string' ? `${escapeRegExp(id)}$` : id.source.replace(/^\^/, ''))).join('|')})`),
    unknownAction(deps.logger),
  );
  app.command(new RegExp(`^(?!(${SLACK_COMMANDS.map(escapeRegExp).join('|')})$)`), async ({ ack, command }) =>
    ack({ response_type: 'ephemeral', text: `I do not know ${command.command}; try /datadesk help or /backtest help.` }),
  );
  // logged, then thrown on: the HTTP receiver answers 500 and Socket Mode leaves the envelope unacked, so Slack
  // delivers it again (the delivery key answers it once); a 200 here would tell Slack a lost question was received
  app.error(async (error) => {
    // a workspace with no installation (never added, or removed) has nothing to answer with: acknowledged and dropped,
    // where a failed lookup (the database is down) goes on to a non-2xx, and Slack delivers it again
    if (causedBy(error, NoInstallationError)) {
      deps.logger.warn(`slack: a request from a workspace that has not installed the app was dropped (${error.message})`);
      return;
    }
    deps.logger.error(`slack: ${error.message}`);
    throw error;
  });

  return {
    app,
    route:
      receiver instanceof HTTPReceiver
        ? async (req, res) => {
            if (installer && (await installer.route(req, res))) return true;
            if (new URL(req.url ?? '/', 'http://x').pathname !== SLACK_EVENTS_PATH) return false;
            if (req.method !== 'POST') {
              res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('Slack posts events here; nothing to GET.');
              return true;
            }
            // Bolt refuses requests older than 5 minutes; one from more than 5 minutes ahead is as suspect (a replay kept for later)
            const stamp = Number(req.headers['x-slack-request-timestamp']);
            if (Number.isFinite(stamp) && stamp > Date.now() / 1000 + 300) {
              res.writeHead(401, { 'content-type': 'text/plain' }).end('The request timestamp is more than 5 minutes in the future.');
              return true;
            }
            receiver.requestListener(req, res);
            return true;
          }
        : undefined,
    start: async () => {
      if (socketMode) await app.start();
    },
    stop: async () => {
      if (socketMode) await app.stop();
    },
  };
}
