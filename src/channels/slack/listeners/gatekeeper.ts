// What every inbound Slack question passes first: exactly-once delivery, the
// channel allow-list, and the per-user and per-channel rate limits.
import type { EventDeduper } from '../../../core/dedupe.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/errors.js';
import type { RateLimiter } from '../../../core/rate-limit.js';

export interface Gate {
  deduper: EventDeduper;
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
 * Claims a delivery. When the claim cannot be recorded because the database is
 * down, the person is told so in the thread (never silence) and nothing else runs.
 */
export async function claimDelivery(gate: Gate, eventId: string, tell: (text: string) => Promise<unknown>): Promise<boolean> {
  try {
    return await gate.deduper.claim(eventId);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    await tell(DATABASE_UNAVAILABLE_MESSAGE);
    return false;
  }
}
