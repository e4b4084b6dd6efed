// datadesk serve: the long-running bot process. Opens the database (embedded
// when DATABASE_URL is unset), loads the demo set on a fresh embedded database,
// serves HTTP (the receivers: Slack, Teams, the playground), runs the
// schedules, and answers the queued questions in its own workers unless
// started with --no-worker (then `datadesk worker` processes answer them).
// Runs until SIGINT/SIGTERM.
import pg from 'pg';
import { ExportGate } from '../../export/export-gate.js';
import { describeLlm } from '../../config/env.js';
import { openDatabase } from '../../db/database.js';
import { redactUrl } from '../../db/database.js';
import { dataFreshness } from '../../db/freshness.js';
import { warnUnboundedMemory } from '../../db/memory-bound.js';
import { ensureDemoData } from '../../ingest/demo-data.js';
import { markInterruptedRuns } from '../../ingest/run-log.js';
import { scheduleSocrataSync } from '../../ingest/crimes/socrata-schedule.js';
import { healthRoutes, startHttpServer, type Route } from '../../server/http-server.js';
import { createSlackApp, SLACK_EVENTS_PATH } from '../../channels/slack/slack-app.js';
import { SLACK_INSTALL_PATH, SLACK_REDIRECT_PATH } from '../../channels/slack/slack-install.js';
import { chartRoutes } from '../../server/chart-routes.js';
import { exportHosts, exportLink, exportRoutes } from '../../server/export-routes.js';
import { runRoutes } from '../../server/run-routes.js';
import { BacktestRuns } from '../../backtest/run-id.js';
import { DigestScheduler } from '../../digest/scheduler.js';
import { digestDeps } from '../../digest/digest-deps.js';
import { digestProducer } from '../../digest/digest-jobs.js';
import { receive } from '../../channels/inbox.js';
import { RateLimiter } from '../../core/rate-limit.js';
import { configuredPlatforms } from '../../channels/platforms.js';
import { DataDeskTeamsBot } from '../../channels/teams/teams-bot.js';
import { teamsRoutes, TEAMS_MESSAGES_PATH } from '../../channels/teams/teams-adapter.js';
import { teamsPages } from '../../channels/teams/teams-pages.js';
import { announceLocalTeams, publicUrlWarning, teamsCredentialProblem, teamsReceiverMode } from '../../channels/teams/teams-mode.js';
import { ConfigError } from '../../config/env.js';
import { commandContext } from '../context.js';
import { takeBackShutdownSignals } from '../../db/embedded.js';
import { logStrayRejections } from '../stray-rejections.js';
import { createDesk } from '../../agents/create-desk.js';
import { ChartStore } from '../../charts/chart-store.js';
import { playgroundRoutes } from '../../channels/web/playground-routes.js';
import { playgroundAccess } from '../../channels/web/playground-access.js';
import { startJobs } from '../../jobs/runtime.js';
import { destroyWorkerPool } from '../../backtest/threads/pool.js';
import { MEMORY_IN_PROCESS, warmInBackground } from './worker-run.js';
import { bestEffort } from '../../core/best-effort.js';

export async function runServe(options: { worker: boolean }): Promise<void> {
  const { config, logger } = commandContext();
  logStrayRejections(logger);
  // Teams: registered (app id and password), local (TEAMS_LOCAL=true, loopback HOST only) or off
  const teamsProblem = teamsCredentialProblem(config);
  if (teamsProblem) throw new ConfigError([teamsProblem]);
  const teamsMode = teamsReceiverMode(config);
  if (!teamsMode.on && teamsMode.why) logger.error(teamsMode.why);
  const db = await openDatabase(config, logger, { refuseSuperuser: true });
  // Ctrl-C and SIGTERM are ours to handle (below), in order: the embedded server stops last
  takeBackShutdownSignals();
  // during start-up (the first start's demo load takes seconds) a Ctrl-C ends the process at once: the open
  // transaction is rolled back by the server, our exit hook stops the embedded server (it was left running), and an
  // interrupted demo load is redone whole at the next start
  const startingUp = () => {
    logger.warn('Stopping during start-up (an unfinished demo load is redone at the next start)');
    process.exit(130);
  };
  process.once('SIGINT', startingUp);
  process.once('SIGTERM', startingUp);
  if (config.databaseUrl) logger.info(`PostgreSQL: ${redactUrl(config.databaseUrl)}`);
  // the server that runs model-written SQL: a warning when it is on this machine with no memory limit (memory-bound.ts)
  await warnUnboundedMemory(
    config.readDatabaseUrl && db.reader ? db.reader : db.read,
    config.readDatabaseUrl ?? config.databaseUrl,
    logger,
  );
  const interrupted = await markInterruptedRuns(db.write);
  if (interrupted)
    logger.warn(`Ingest: ${interrupted} load${interrupted === 1 ? ' was' : 's were'} interrupted earlier (process stopped); marked failed`);
  if (config.demoData === 'auto' && db.embedded) {
    const loaded = await ensureDemoData(db.write, config, logger);
    if (loaded.length) logger.info(`Demo data loaded: ${loaded.join(' and ')}`);
  }
  const freshness = await dataFreshness(db.read);
  logger.info(
    `Data: ${freshness.crimes.rows.toLocaleString('en-US')} crimes through ${freshness.crimes.latest ?? '(none)'}; ` +
      `${freshness.stocks.rows.toLocaleString('en-US')} daily bars through ${freshness.stocks.latest ?? '(none)'}`,
  );
  logger.info(describeLlm(config));
  const sync = scheduleSocrataSync(db.write, config, logger);
  const { desk, memory } = createDesk(config, db, logger);
  const routes: Route[] = [healthRoutes(db.read, new Date())];
  const charts = ChartStore.inDatabase(db.write, logger, { quickchartUrl: config.quickchartUrl });
  routes.push(chartRoutes(charts));
  let publicUrl = config.publicBaseUrl ?? `http://${config.host}:${config.port}`;
  // PUBLIC_BASE_URL, else the address Teams reached a receiver at, else this server's own
  const chartLink = (png: Buffer, base?: string) => `${config.publicBaseUrl ?? base ?? publicUrl}/charts/${charts.put(png)}.png`;
  const platforms = configuredPlatforms({
    config,
    pool: db.write,
    logger,
    teams: teamsMode.on ? teamsMode.credentials : undefined,
    chartLink,
    chartLater: (spec, base) => `${config.publicBaseUrl ?? base ?? publicUrl}/charts/${charts.putLater(spec, ['card'])[0]}.png`,
    exportLink: (token, base) => exportLink(config.publicBaseUrl ?? base ?? publicUrl, token),
    slackRedirectUri: config.publicBaseUrl && `${config.publicBaseUrl}${SLACK_REDIRECT_PATH}`,
    feedback: Boolean(desk.verified),
  });
  const teamsAdapter = platforms.teams?.adapter;
  const digestNeeds = digestDeps(config, db, desk, logger, platforms.posters);
  const jobs = await startJobs({
    pool: db.write,
    desk,
    logger,
    settings: config.jobs,
    work: options.worker,
    outboxes: platforms.outboxes,
    digests: digestProducer({ pool: db.write, logger, content: digestNeeds.content }),
  });
  if (options.worker) warmInBackground(db.read, config.statementTimeoutMs, logger);
  if (!options.worker) logger.info('Receiving only (--no-worker): questions wait in the queue for `datadesk worker` processes');
  if (!options.worker && config.threadMemoryUrl === 'memory') logger.warn(MEMORY_IN_PROCESS);
  // exports on a budget of their own: two connections of their own on the reader login, at most two at once and one a
  // person, so questions never wait behind a two-minute download
  const exportPool = db.reader ? new pg.Pool({ ...db.reader.options, max: 2, application_name: 'datadesk-export' }) : undefined;
  exportPool?.on('error', (error) => logger.warn(`export pool: ${error.message}`));
  const exports = {
    pool: exportPool ?? db.read,
    rowLimit: config.export.rowLimit,
    statementTimeoutMs: config.export.timeoutMs,
    gate: new ExportGate(),
  };
  routes.push(exportRoutes(jobs.deliveries, exports, logger, { hosts: exportHosts(config), perMinute: config.rateLimits.userPerMinute }));
  // a backtest run's link: says only that the run exists (its parameters stay in its workspace; Slack unfurls them there)
  routes.push(runRoutes(new BacktestRuns(db.write), { perMinute: config.rateLimits.userPerMinute }));
  const slack = config.slack
    ? createSlackApp({
        config,
        desk,
        readPool: db.read,
        writePool: db.write,
        logger,
        queue: jobs.queue,
        exports,
        installer: platforms.slack?.installer,
        feedback: desk.verified && { verified: desk.verified, curators: config.curators },
      })
    : undefined;
  if (slack?.route) routes.push(slack.route);
  if (teamsAdapter) {
    const bot = new DataDeskTeamsBot({
      desk,
      queue: jobs.queue,
      deliveries: jobs.deliveries,
      pool: db.write,
      logger,
      gate: {
        userLimit: new RateLimiter(config.rateLimits.userPerMinute, Date.now, config.rateLimits.userBurst),
        channelLimit: new RateLimiter(config.rateLimits.channelPerMinute),
        allowedChannels: [],
        allowedWorkspaces: config.teams?.allowedTenants ?? [],
      },
      defaultTimezone: config.scheduleTimezone,
      feedback: desk.verified && { verified: desk.verified, curators: config.curators },
    });
    routes.push(teamsRoutes(teamsAdapter, bot, logger, { local: teamsMode.on && teamsMode.local }), teamsPages(config));
  }
  // the playground when no chat platform is configured (Teams in local mode does not count): the product works out of the box
  const channelsConfigured = Boolean(config.slack || (config.teams && !config.teams.local));
  const playground = channelsConfigured
    ? undefined
    : playgroundRoutes({
        queue: jobs.queue,
        deliveries: jobs.deliveries,
        events: jobs.events,
        charts,
        logger,
        access: playgroundAccess(config),
        exports,
        feedback: desk.verified && { pool: db.write, verified: desk.verified },
      });
  if (playground) routes.push(playground);
  const server = await startHttpServer(config.host, config.port, routes, logger);
  publicUrl = config.publicBaseUrl ?? server.url;
  if (teamsMode.on && teamsMode.local) announceLocalTeams(logger, `${server.url}${TEAMS_MESSAGES_PATH}`);
  else if (teamsMode.on) logger.info(`Teams: messages at ${publicUrl}${TEAMS_MESSAGES_PATH}`);
  const chartsWarning = teamsMode.on ? publicUrlWarning(config) : undefined;
  if (chartsWarning) logger.warn(chartsWarning);
  if (slack) {
    await slack.start();
    logger.info(
      config.slack!.appToken
        ? 'Slack: connected in Socket Mode'
        : `Slack: events, commands and actions at ${server.url}${SLACK_EVENTS_PATH}`,
    );
    if (platforms.slack?.installer) {
      const installed = await platforms.slack.installer.store.list();
      logger.info(
        `Slack: installs from many workspaces: "Add to Slack" at ${publicUrl}${SLACK_INSTALL_PATH} (${installed.length} installed now)`,
      );
    }
  } else if (playground?.enabled) {
    logger.info(`Playground: ${server.url} (no Slack or Teams credentials configured: chat with the bot in your browser)`);
  }
  // digests: every process runs the scheduler; per platform, one of those configured for it leads (advisory lock)
  // and hands each due period to the inbox; an answer worker configured for the platform runs it
  const digests = new DigestScheduler({
    pool: db.write,
    logger,
    ...digestNeeds,
    graceMs: config.digestGraceMinutes * 60_000,
    dispatch: (job) => receive({ queue: jobs.queue, deliveries: jobs.deliveries, logger }, job),
  });
  if (slack || teamsAdapter) digests.start(config.digestTickSeconds * 1_000);
  logger.info(`Data Desk is running (health: ${server.url}/healthz, status: ${server.url}/status). Ctrl-C stops it.`);

  process.off('SIGINT', startingUp);
  process.off('SIGTERM', startingUp);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  logger.info('Stopping...');
  sync?.stop();
  await digests.stop();
  await slack?.stop();
  await server.close();
  await jobs.stop();
  await destroyWorkerPool();
  await memory.close();
  if (exportPool) await bestEffort(exportPool.end(), 'closing the export pool', logger);
  await db.close();
}
