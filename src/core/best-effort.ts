// Work whose failure changes nothing for the person waiting: a ROLLBACK after
// the error that is already being thrown, closing a pool on the way out,
// cancelling a stream we refuse. Its failure is not thrown, but it is not lost
// either: it goes to the debug log (the injected logger's, or with none at
// hand NODE_DEBUG=datadesk's), so "why did the pool not close" has an answer.
import { debuglog } from 'node:util';
import type { Logger } from './logger.js';

const nodeDebug = debuglog('datadesk');

/** Awaits `work`; a failure resolves to undefined and is logged at debug level as "`what` failed: reason". */
export async function bestEffort<T>(work: Promise<T>, what: string, logger?: Logger): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    const line = `${what} failed (best effort, carrying on): ${error instanceof Error ? error.message : String(error)}`;
    if (logger) logger.debug(line);
    else nodeDebug('%s', line);
    return undefined;
  }
}
