// app_mention: a question in a channel; the answer goes into its thread.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { answerInThread, inbound, stripMention, type SlackDeps } from '../thread-reply.js';
import { admit, claimDelivery, type Gate } from './gatekeeper.js';

export function appMention(deps: SlackDeps, gate: Gate) {
  return async ({ event, body, client }: SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs): Promise<void> => {
    const eventId = (body as { event_id?: string }).event_id ?? `${event.channel}:${event.ts}`;
    const tell = (text: string) => client.chat.postMessage({ channel: event.channel, thread_ts: event.thread_ts ?? event.ts, text });
    if (!(await claimDelivery(gate, eventId, tell))) return;
    try {
      const threadTs = event.thread_ts ?? event.ts;
      const user = event.user ?? 'unknown';
      const verdict = admit(gate, event.channel, user);
      if (!verdict.go) {
        if (verdict.tellUser) await client.chat.postEphemeral({ channel: event.channel, user, thread_ts: threadTs, text: verdict.tellUser });
        await gate.deduper.done(eventId);
        return;
      }
      const text = stripMention(event.text);
      await answerInThread(deps, { client, channel: event.channel, threadTs, userId: user }, (progress) =>
        deps.desk.answer(inbound(event.channel, threadTs, user, text || 'help'), progress),
      );
      await gate.deduper.done(eventId);
    } catch (error) {
      // let Slack's retry of this event be served
      await gate.deduper.release(eventId);
      throw error;
    }
  };
}
