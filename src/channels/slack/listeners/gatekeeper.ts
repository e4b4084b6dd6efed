// What every inbound Slack question passes before it is queued: the channel
// allow-list and the per-user and per-channel rate limits. (Exactly-once
// delivery is the queue's: see enqueueInThread.)
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/errors.js';
import type { RateLimiter } from '../../../core/rate-limit.js';

export interface Gate {
  userLimit: RateLimiter;
  channelLimit: RateLimiter;
  allowedChannels: string[];
}

export type GateVerdict = { go: true } | { go: false; tellUser?: string };

export function admit(gate: Gate, channel: string, userId: string): GateVerdict {
  if (gate.allowedChannels.length && !gate.allowedChannels.includes(channel)) {
    return { go: false, tellUser: 'I only answer in the channels my admins allowed; try one of those, or a direct message.' };
  }
  const wait = Math.max(gate.userLimit.take(`user:${userId}`), gate.channelLimit.take(`channel:${channel}`));
  if (wait > 0) return { go: false, tellUser: `You are asking faster than I can answer well: please try again in ${wait} s.` };
  return { go: true };
}

/** The question could not be stored: thrown on, so the receiver answers non-2xx (Slack retries) or leaves the envelope unacked. */
export class NotStoredError extends Error {
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
export async function queueOrTell(enqueue: () => Promise<unknown>, tell: (text: string) => Promise<unknown>, retryNum?: number): Promise<void> {
  try {
    await enqueue();
  } catch (error) {
    if (isDatabaseUnavailable(error) && !retryNum) await tell(DATABASE_UNAVAILABLE_MESSAGE).catch(() => undefined);
    throw new NotStoredError(error);
  }
}
