// What a Slack receiver does when the question cannot be queued. (What every
// question passes first, the allow-lists and rate limits, is the inbox's:
// channels/inbox.ts; exactly-once delivery is the queue's: see enqueueInThread.)
import { bestEffort } from '../../../core/best-effort.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/errors.js';

/** The question could not be stored: thrown on, so the receiver answers non-2xx (Slack retries) or leaves the envelope unacked. */
class NotStoredError extends Error {
  constructor(readonly cause: unknown) {
    super(`the question could not be queued (${(cause as Error)?.message ?? String(cause)}); Slack is asked to send it again`);
    this.name = 'NotStoredError';
  }
}

/**
 * Runs the queueing step. When it fails, nothing was stored: the error goes on, so Slack's acknowledgement
 * is a non-2xx and Slack delivers the event again (the delivery key makes that safe), and the receiver never
 * says "received" for a question it lost. When the database is down the person is also told so in the
 * thread, once (not at each of Slack's retries).
 */
export async function queueOrTell(
  enqueue: () => Promise<unknown>,
  tell: (text: string) => Promise<unknown>,
  retryNum?: number,
): Promise<void> {
  try {
    await enqueue();
  } catch (error) {
    if (isDatabaseUnavailable(error) && !retryNum)
      await bestEffort(tell(DATABASE_UNAVAILABLE_MESSAGE), 'saying the database is unavailable');
    throw new NotStoredError(error);
  }
}
