// Bolt's logger interface over ours: Bolt's and the Socket Mode client's lines
// go to the app's log, prefixed "slack:".
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../core/logger.js';

export function boltLogger(logger: Logger): BoltLogger {
  return {
    debug: (...m) => logger.debug(`slack: ${m.join(' ')}`),
    info: (...m) => logger.info(`slack: ${m.join(' ')}`),
    warn: (...m) => logger.warn(`slack: ${m.join(' ')}`),
    error: (...m) => logger.error(`slack: ${m.join(' ')}`),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
