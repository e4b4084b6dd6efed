// What every command needs: the validated config, a logger, and a database
// that is opened (and migrated) for the command and closed after it.
import { loadConfigFromProcess } from '../config/load.js';
import type { Config } from '../config/env.js';
import { createLogger, type Logger } from '../core/logger.js';
import { openDatabase, type Database } from '../db/database.js';

export interface CommandContext {
  config: Config;
  logger: Logger;
}

export function commandContext(): CommandContext {
  const config = loadConfigFromProcess();
  return { config, logger: createLogger(config.logLevel) };
}

export async function withDatabase<T>(
  ctx: CommandContext,
  run: (db: Database) => Promise<T>,
  options: { demoData?: boolean; reader?: boolean } = {},
): Promise<T> {
  const db = await openDatabase(ctx.config, ctx.logger, { reader: options.reader });
  try {
    // on the embedded defaults, commands that answer questions need something to answer from
    if (options.demoData && db.embedded && ctx.config.demoData === 'auto') {
      // the demo data's loader (the generators, the ingest) loads only on the embedded defaults
      const { ensureDemoData } = await import('../ingest/demo-data.js');
      const loaded = await ensureDemoData(db.write, ctx.config, ctx.logger);
      if (loaded.length) ctx.logger.info(`Demo data loaded: ${loaded.join(' and ')}`);
    }
    return await run(db);
  } finally {
    await db.close();
  }
}
