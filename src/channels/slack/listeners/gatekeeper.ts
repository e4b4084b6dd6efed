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

/**
 * Runs the queueing step; when the database is down the person is told so in
 * the thread (never silence) and the platform's retry is not waited for.
 */
export async function queueOrTell(enqueue: () => Promise<unknown>, tell: (text: string) => Promise<unknown>): Promise<void> {
  try {
    await enqueue();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    await tell(DATABASE_UNAVAILABLE_MESSAGE);
  }
}
