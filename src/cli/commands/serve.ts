// datadesk serve: the long-running bot process. Opens the database (embedded
// when DATABASE_URL is unset), loads the demo set on a fresh embedded database,
// serves HTTP and runs the schedules until SIGINT/SIGTERM.
import type { Command } from 'commander';
import { describeLlm } from '../../config/env.js';
import { openDatabase } from '../../db/database.js';
import { redactUrl } from '../../db/database.js';
import { dataFreshness } from '../../db/freshness.js';
import { ensureDemoData } from '../../ingest/demo-data.js';
import { scheduleSocrataSync } from '../../ingest/crimes/socrata-schedule.js';
import { healthRoutes, startHttpServer } from '../../server/http-server.js';
import { commandContext } from '../context.js';
import { createDesk } from '../../agents/create-desk.js';
import { ChartStore } from '../../charts/chart-store.js';
import { playgroundRoutes } from '../../channels/web/playground-routes.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the bot: HTTP endpoints, schedules, and the demo data on first start')
    .action(async () => {
      const { config, logger } = commandContext();
      const db = await openDatabase(config, logger);
      if (config.databaseUrl) logger.info(`PostgreSQL: ${redactUrl(config.databaseUrl)}`);
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
      const charts = new ChartStore();
      const server = await startHttpServer(
        config.host,
        config.port,
        [healthRoutes(db.read, new Date()), playgroundRoutes({ desk, charts, logger, quickchartUrl: config.quickchartUrl })],
        logger,
      );
      logger.info(`Playground: ${server.url} (no Slack or Teams credentials configured: chat with the bot in your browser)`);
      logger.info(`Data Desk is running (health: ${server.url}/healthz, status: ${server.url}/status). Ctrl-C stops it.`);

      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      logger.info('Stopping...');
      sync?.stop();
      await server.close();
      await memory.close();
      await db.close();
    });
}
