// "Full SQL": the complete query of a shortened SQL block, to the clicker only.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { codeSections } from '../render-blocks.js';
import { clickOf } from './click.js';

export function showSql() {
  return async ({
    ack,
    body,
    action,
    client,
    context,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const click = clickOf(body, client, context);
    if (!click) return;
    // escaped before it is split: 2,000 "<" are 8,000 characters once sent
    const blocks = codeSections(action.value ?? '');
    await client.chat.postEphemeral({ channel: click.channel, user: click.userId, thread_ts: click.threadTs, text: 'Full SQL', blocks });
  };
}
