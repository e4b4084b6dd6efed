// message.im: a question in a direct message, queued under Slack's event_id;
// answered in the message's thread.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { admit, type Gate } from '../../inbox.js';
import { enqueueInThread, inbound, originOf, type SlackReceiverDeps } from '../thread-reply.js';
import { queueOrTell } from './gatekeeper.js';
import { fromSlackText } from '../slack-text.js';

export function directMessage(deps: SlackReceiverDeps, gate: Gate) {
  return async ({ message, body, client, context }: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs): Promise<void> => {
    // only people's plain messages in DMs: not edits, not bots (ourselves included)
    if (message.channel_type !== 'im' || message.subtype !== undefined || 'bot_id' in message) return;
    const key = `slack:event:${(body as { event_id?: string }).event_id ?? `${message.channel}:${message.ts}`}`;
    const threadTs = ('thread_ts' in message && message.thread_ts) || message.ts;
    const user = 'user' in message ? message.user : 'unknown';
    const tell = (text: string) => client.chat.postMessage({ channel: message.channel, thread_ts: threadTs, text });
    const origin = originOf(context);
    const verdict = admit(gate, { workspace: origin.workspace, channel: message.channel, userId: user });
    if (!verdict.go) {
      if (verdict.tellUser) await tell(verdict.tellUser);
      return;
    }
    const text = fromSlackText(('text' in message && message.text) || '') || 'help';
    await queueOrTell(
      () =>
        enqueueInThread(
          deps,
          { client, ...origin, channel: message.channel, threadTs, userId: user },
          key,
          inbound(origin, message.channel, threadTs, user, text),
        ),
      tell,
      context.retryNum,
    );
  };
}
