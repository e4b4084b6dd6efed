// A long-running process must not die of a promise nobody awaited. pg-boss 10
// completes a job without awaiting the call (manager.js, onFetch), so while the
// database is down that rejection reaches the process; Node 20 would end it.
// The job itself is safe (it stays active and is retried), so the rejection is
// logged and the process goes on.
import type { Logger } from '../core/logger.js';
import { describeError } from '../core/errors.js';

export function logStrayRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason) => logger.warn(`a background step failed: ${describeError(reason)}`));
}
