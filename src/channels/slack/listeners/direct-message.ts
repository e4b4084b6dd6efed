// message.im: a question in a direct message; answered in the message's thread.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { answerInThread, inbound, type SlackDeps } from '../thread-reply.js';
import { admit, claimDelivery, type Gate } from './gatekeeper.js';
import { fromSlackText } from '../slack-text.js';

export function directMessage(deps: SlackDeps, gate: Gate) {
  return async ({ message, body, client }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs): Promise<void> => {
    // only people's plain messages in DMs: not edits, not bots (ourselves included)
    if (message.channel_type !== 'im' || message.subtype !== undefined || 'bot_id' in message) return;
    const eventId = (body as { event_id?: string }).event_id ?? `${message.channel}:${message.ts}`;
    const tell = (text: string) => client.chat.postMessage({ channel: message.channel, thread_ts: ('thread_ts' in message && message.thread_ts) || message.ts, text });
    if (!(await claimDelivery(gate, eventId, tell))) return;
    try {
      const threadTs = ('thread_ts' in message && message.thread_ts) || message.ts;
      const user = 'user' in message ? message.user : 'unknown';
      const verdict = admit(gate, message.channel, user);
      if (!verdict.go) {
        if (verdict.tellUser) await client.chat.postMessage({ channel: message.channel, thread_ts: threadTs, text: verdict.tellUser });
        await gate.deduper.done(eventId);
        return;
      }
      const text = fromSlackText(('text' in message && message.text) || '') || 'help';
      await answerInThread(deps, { client, channel: message.channel, threadTs, userId: user }, (progress) =>
        deps.desk.answer(inbound(message.channel, threadTs, user, text), progress),
      );
      await gate.deduper.done(eventId);
    } catch (error) {
      await gate.deduper.release(eventId);
      throw error;
    }
  };
}
