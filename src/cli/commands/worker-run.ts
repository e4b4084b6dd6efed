// datadesk worker: answers queued questions and nothing else (no HTTP, no
// schedules). Run any number of them, on any machine that reaches
// DATABASE_URL, beside `serve --no-worker` receivers. It replies to the
// platforms it has credentials for: Slack with SLACK_BOT_TOKEN, Teams with
// MICROSOFT_APP_ID, and always to the playground; it also runs the digest
// periods of those platforms that the leading scheduler queued.
import { describeLlm } from '../../config/env.js';
import { openDatabase, redactUrl } from '../../db/database.js';
import { createDesk } from '../../agents/create-desk.js';
import { ChartStore } from '../../charts/chart-store.js';
import { configuredPlatforms } from '../../channels/platforms.js';
import { publicUrlWarning, teamsCredentialProblem, teamsCredentials } from '../../channels/teams/teams-mode.js';
import { ConfigError } from '../../config/env.js';
import { startJobs } from '../../jobs/runtime.js';
import { exportLink } from '../../server/export-routes.js';
import { destroyWorkerPool } from '../../backtest/threads/pool.js';
import { warmBarCache } from '../../agents/backtest/retrieval.js';
import { digestDeps } from '../../digest/digest-deps.js';
import { digestProducer } from '../../digest/digest-jobs.js';
import { commandContext } from '../context.js';
import { takeBackShutdownSignals } from '../../db/embedded.js';
import { logStrayRejections } from '../stray-rejections.js';

/** Thread memory in one process cannot be shared with the receivers that check a clarification click. */
export const MEMORY_IN_PROCESS =
  'THREAD_MEMORY_URL=memory keeps thread memory inside one process: with receivers and workers apart, clarifications and follow-ups are lost. Leave it unset (PostgreSQL) or use redis://.';

/** The market's bars into the shared cache once the process is up, so that even the first whole-market backtest is served from memory. */
export function warmInBackground(pool: import('pg').Pool, statementTimeoutMs: number, logger: import('../../core/logger.js').Logger): void {
  const started = performance.now();
  warmBarCache(pool, statementTimeoutMs)
    .then(() => logger.debug(`backtests: bar cache loaded in ${Math.round(performance.now() - started)} ms`))
    .catch((error) =>
      logger.warn(`backtests: the bar cache could not be loaded ahead (${(error as Error).message}); the first backtest loads it`),
    );
}

export async function runWorker(): Promise<void> {
  const { config, logger } = commandContext();
  logStrayRejections(logger);
  const teamsProblem = teamsCredentialProblem(config);
  if (teamsProblem) throw new ConfigError([teamsProblem]);
  const db = await openDatabase(config, logger, { refuseSuperuser: true });
  // Ctrl-C and SIGTERM are ours to handle (below), in order: the embedded server stops last
  takeBackShutdownSignals();
  if (config.databaseUrl) logger.info(`PostgreSQL: ${redactUrl(config.databaseUrl)}`);
  logger.info(describeLlm(config));
  if (config.threadMemoryUrl === 'memory') logger.warn(MEMORY_IN_PROCESS);
  const { desk, memory } = createDesk(config, db, logger);
  const charts = ChartStore.inDatabase(db.write, logger, { quickchartUrl: config.quickchartUrl });
  const publicUrl = config.publicBaseUrl ?? `http://${config.host}:${config.port}`;
  const platforms = configuredPlatforms({
    config,
    pool: db.write,
    logger,
    // local mode (TEAMS_LOCAL=true): an empty app id, answers sent unauthenticated to the Emulator's serviceUrl
    teams: config.teams && teamsCredentials(config.teams),
    // PUBLIC_BASE_URL, else the address Teams reached the receiver at (this process serves nothing), else ours
    chartLink: (png: Buffer, base?: string) => `${config.publicBaseUrl ?? base ?? publicUrl}/charts/${charts.put(png)}.png`,
    chartLater: (spec, base) => `${config.publicBaseUrl ?? base ?? publicUrl}/charts/${charts.putLater(spec, ['card'])[0]}.png`,
    exportLink: (token, base) => exportLink(config.publicBaseUrl ?? base ?? publicUrl, token),
    feedback: Boolean(desk.verified),
  });
  const { content } = digestDeps(config, db, desk, logger, platforms.posters);
  const jobs = await startJobs({
    pool: db.write,
    desk,
    logger,
    settings: config.jobs,
    work: true,
    outboxes: platforms.outboxes,
    digests: digestProducer({ pool: db.write, logger, content }),
  });
  if (config.teams?.local)
    logger.warn(
      'Teams: local mode (TEAMS_LOCAL=true, no MICROSOFT_APP_ID): answers go unauthenticated to the Bot Framework Emulator on this machine',
    );
  const chartsWarning = publicUrlWarning(config);
  if (chartsWarning) logger.warn(chartsWarning);
  warmInBackground(db.read, config.statementTimeoutMs, logger);
  logger.info('Data Desk worker is running. Ctrl-C stops it (answers in progress finish first, or go to another worker).');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  logger.info('Stopping...');
  await jobs.stop();
  await destroyWorkerPool();
  await memory.close();
  await db.close();
}
