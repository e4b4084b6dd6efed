// message.im: a question in a direct message, queued under Slack's event_id;
// answered in the message's thread. (A message in an agent-view thread comes
// through listeners/agent-view.ts, and is queued by the same queueDirectQuestion.)
import { NOTICE_METADATA } from '../placeholder.js';
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { admit, type Gate } from '../../inbox.js';
import { enqueueInThread, inbound, originOf, type SlackReceiverDeps } from '../thread-reply.js';
import { queueOrTell } from './gatekeeper.js';
import { fromSlackText } from '../slack-text.js';

type MessageArgs = Pick<SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs, 'message' | 'body' | 'client' | 'context'>;

/**
 * A person's question in a DM (or an agent-view thread), admitted by the gate and queued, answered in `threadTs`;
 * false when it was not queued (refused, and told why).
 */
export async function queueDirectQuestion(
  deps: SlackReceiverDeps,
  gate: Gate,
  { message, body, client, context }: MessageArgs,
  threadTs: string,
  agentView = false,
): Promise<boolean> {
  const key = `slack:event:${(body as { event_id?: string }).event_id ?? `${message.channel}:${message.ts}`}`;
  const user = 'user' in message && message.user ? message.user : 'unknown';
  const tell = (text: string) =>
    client.chat.postMessage({ channel: message.channel, thread_ts: threadTs, text, metadata: NOTICE_METADATA });
  const origin = originOf(context);
  const text = fromSlackText(('text' in message && message.text) || '') || 'help';
  const verdict = admit(gate, { workspace: origin.workspace, channel: message.channel, userId: user, text });
  if (!verdict.go) {
    // only the asker sees why: a refused turn does not stay in the thread as a failed answer
    if (verdict.tellUser) await client.chat.postEphemeral({ channel: message.channel, user, thread_ts: threadTs, text: verdict.tellUser });
    return false;
  }
  await queueOrTell(
    () =>
      enqueueInThread(
        deps,
        { client, ...origin, channel: message.channel, threadTs, userId: user, ...(agentView ? { agentView } : {}) },
        key,
        inbound(origin, message.channel, threadTs, user, text),
      ),
    tell,
    context.retryNum,
  );
  return true;
}

export function directMessage(deps: SlackReceiverDeps, gate: Gate) {
  return async (args: SlackEventMiddlewareArgs<'message'> & AllMiddlewareArgs): Promise<void> => {
    const { message } = args;
    // only people's plain messages in DMs: not edits, not bots (ourselves included)
    if (message.channel_type !== 'im' || message.subtype !== undefined || 'bot_id' in message) return;
    const threadTs = ('thread_ts' in message && message.thread_ts) || message.ts;
    await queueDirectQuestion(deps, gate, args, threadTs);
  };
}
