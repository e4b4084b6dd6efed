// Runs the portal sync on a cron schedule inside `datadesk serve`. A run that is
// still going when the next one is due makes the next one wait its turn
// (croner's `protect`), and a failed run logs one clear line and waits for the
// next tick instead of retrying in a loop.
import path from 'node:path';
import { Cron } from 'croner';
import type pg from 'pg';
import type { Config } from '../../config/env.js';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import { syncSocrata } from './socrata-sync.js';

export function scheduleSocrataSync(pool: pg.Pool, config: Config, logger: Logger): Cron | undefined {
  const cron = config.socrata.schedule;
  if (!cron) return undefined;
  const job = new Cron(cron, { timezone: config.scheduleTimezone, protect: true }, async () => {
    const started = Date.now();
    try {
      const s = await syncSocrata({
        pool,
        url: config.socrata.url,
        appToken: config.socrata.appToken,
        pageSize: config.socrata.pageSize,
        rejectsPath: path.resolve(config.home, `socrata-rejects-${new Date().toISOString().slice(0, 10)}.csv`),
        logger,
      });
      logger.info(
        `Portal sync: ${s.inserted} new, ${s.updated} updated, ${s.unchanged} unchanged, ${s.rejected} rejected in ${s.pages} pages (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    } catch (error) {
      logger.error(`Portal sync failed: ${describeError(error)}. It resumes from the last committed page at the next run.`);
    }
  });
  logger.info(`Portal sync: scheduled "${cron}" (${config.scheduleTimezone}); next run ${job.nextRun()?.toISOString()}`);
  return job;
}
