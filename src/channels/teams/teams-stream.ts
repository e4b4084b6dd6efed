// A Teams answer in a personal chat as one streamed message (Teams'
// streaming protocol, learn.microsoft.com "Stream bot messages"): informative
// updates (typing activities with a streaminfo entity) show the question's
// place in line and each step as the blue progress line, and the answer card
// is the final message of the stream, whose id is the stream's id.
//
// Only the final message stays in the chat: informative updates leave
// nothing behind when a stream ends without one (its worker died, or Teams'
// two-minute cap passed), so a stream Teams no longer takes (403
// ContentStreamNotAllowed) is answered with a plain message instead. A retry
// that finds the final begun updates the message of the stream's id (the
// final arrived: the same message) before it sends a new one (it did not).
// Channels and group chats do not stream; there the "on it" message is edited
// into the answer (teams-outbox.ts).
import type { ConversationReference, TurnContext } from 'botbuilder';
import type { Deliveries } from '../../jobs/deliveries.js';

/** Teams streams bot messages in personal (1:1) chats only, and the Emulator not at all. */
export const streamsIn = (reference: Partial<ConversationReference>) =>
  reference.channelId === 'msteams' && reference.conversation?.conversationType === 'personal';

type StreamType = 'informative' | 'streaming' | 'final';

/** The entity that places an activity in a stream; the final one carries no sequence number. */
export const streamInfo = (streamType: StreamType, streamId?: string, streamSequence?: number) => ({
  type: 'streaminfo',
  streamType,
  ...(streamId ? { streamId } : {}),
  ...(streamSequence !== undefined ? { streamSequence } : {}),
});

/** An informative update: the line Teams shows while the answer is worked out. */
export const informative = (text: string, streamId: string | undefined, sequence: number) => ({
  type: 'typing',
  text,
  entities: [streamInfo('informative', streamId, sequence)],
});

/**
 * Opens the stream as the delivery's placeholder ({id, stream: '1'}), with its
 * first informative line; undefined when Teams does not take a stream here
 * (the caller sends an "on it" message instead).
 */
export async function streamPlaceholder(
  context: TurnContext,
  deliveries: Deliveries,
  key: string,
  text: string,
): Promise<string | undefined> {
  let id: string | undefined;
  try {
    id = (await context.sendActivity(informative(text, undefined, 1)))?.id;
  } catch {
    return undefined;
  }
  if (!id) return undefined;
  // a stream nobody finishes leaves nothing in the chat, so a lost race needs no clean-up
  return (await deliveries.claimPlaceholder(key, { id, stream: '1' }))?.id ?? id;
}

/** A stream's sequence numbers must grow across attempts too: each attempt starts a hundred on. */
export const firstSequence = (attempts: number) => 2 + Math.max(0, attempts - 1) * 100;
