// app_mention: a question in a channel, queued under Slack's event_id; the
// answer goes into its thread.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { enqueueInThread, inbound, stripMention, type SlackReceiverDeps } from '../thread-reply.js';
import { admit, queueOrTell, type Gate } from './gatekeeper.js';

export function appMention(deps: SlackReceiverDeps, gate: Gate) {
  return async ({ event, body, client, context }: SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs): Promise<void> => {
    const key = `slack:event:${(body as { event_id?: string }).event_id ?? `${event.channel}:${event.ts}`}`;
    const threadTs = event.thread_ts ?? event.ts;
    const user = event.user ?? 'unknown';
    const verdict = admit(gate, event.channel, user);
    if (!verdict.go) {
      if (verdict.tellUser) await client.chat.postEphemeral({ channel: event.channel, user, thread_ts: threadTs, text: verdict.tellUser });
      return;
    }
    const text = stripMention(event.text) || 'help';
    await queueOrTell(
      () => enqueueInThread(deps, { client, channel: event.channel, threadTs, userId: user }, key, inbound(event.channel, threadTs, user, text)),
      (text) => client.chat.postMessage({ channel: event.channel, thread_ts: threadTs, text }),
      context.retryNum,
    );
  };
}
