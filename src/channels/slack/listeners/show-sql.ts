// "Full SQL": the complete query of a shortened SQL block, to the clicker only.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { codeSections } from '../render-blocks.js';

export function showSql() {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const channel = body.channel?.id;
    if (!channel) return;
    const message = body.message as { ts: string; thread_ts?: string } | undefined;
    // escaped before it is split: 2,000 "<" are 8,000 characters once sent
    const blocks = codeSections(action.value ?? '');
    await client.chat.postEphemeral({ channel, user: body.user.id, thread_ts: message?.thread_ts ?? message?.ts, text: 'Full SQL', blocks });
  };
}
