// What every button listener needs from a click: where it was (the
// workspace, the channel, the clicked message, its thread), who clicked, and a
// way to answer only them (an ephemeral note in the thread). Undefined for a click outside a
// message (Slack sends those from modals and the App Home).
import type { BlockAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { originOf, type SlackOrigin } from '../thread-reply.js';

export interface Click {
  /** the workspace (and enterprise) it came from, as Bolt's context says */
  origin: SlackOrigin;
  channel: string;
  /** the message the button was on */
  messageTs: string;
  /** the thread it belongs to (the message itself when it is a thread's parent) */
  threadTs: string;
  userId: string;
  /** an ephemeral note to the clicker, in the thread */
  say(text: string): Promise<unknown>;
}

export function clickOf(body: BlockAction, client: WebClient, context: { teamId?: string; enterpriseId?: string }): Click | undefined {
  const channel = body.channel?.id;
  const message = body.message as { ts?: string; thread_ts?: string } | undefined;
  if (!channel || !message?.ts) return undefined;
  const threadTs = message.thread_ts ?? message.ts;
  const userId = body.user.id;
  return {
    origin: originOf(context),
    channel,
    messageTs: message.ts,
    threadTs,
    userId,
    say: (text) => client.chat.postEphemeral({ channel, user: userId, thread_ts: threadTs, text }),
  };
}
