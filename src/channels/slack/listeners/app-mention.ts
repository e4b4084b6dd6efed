// app_mention: a question in a channel, queued under Slack's event_id; the
// answer goes into its thread.
import { NOTICE_METADATA } from '../placeholder.js';
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { admit, type Gate } from '../../inbox.js';
import { enqueueInThread, inbound, originOf, stripMention, type SlackReceiverDeps } from '../thread-reply.js';
import { queueOrTell } from './gatekeeper.js';

export function appMention(deps: SlackReceiverDeps, gate: Gate) {
  return async ({ event, body, client, context }: SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs): Promise<void> => {
    const key = `slack:event:${(body as { event_id?: string }).event_id ?? `${event.channel}:${event.ts}`}`;
    const threadTs = event.thread_ts ?? event.ts;
    const user = event.user ?? 'unknown';
    const origin = originOf(context);
    const text = stripMention(event.text) || 'help';
    const verdict = admit(gate, { workspace: origin.workspace, channel: event.channel, userId: user, text });
    if (!verdict.go) {
      if (verdict.tellUser) await client.chat.postEphemeral({ channel: event.channel, user, thread_ts: threadTs, text: verdict.tellUser });
      return;
    }
    await queueOrTell(
      () =>
        enqueueInThread(
          deps,
          { client, ...origin, channel: event.channel, threadTs, userId: user },
          key,
          inbound(origin, event.channel, threadTs, user, text),
        ),
      (text) => client.chat.postMessage({ channel: event.channel, thread_ts: threadTs, text, metadata: NOTICE_METADATA }),
      context.retryNum,
    );
  };
}
