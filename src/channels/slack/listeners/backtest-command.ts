// /backtest RULES OR TEXT: acknowledged at once; the request is posted in the
// channel as a thread parent and the backtest is queued (keyed by the
// command's trigger_id) to be answered in that thread.
import { NOTICE_METADATA } from '../placeholder.js';
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { RULE_SYNTAX_HELP } from '../../../agents/backtest/help.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/errors.js';
import { admit, type Gate } from '../../inbox.js';
import { enqueueInThread, inbound, originOf, type SlackReceiverDeps } from '../thread-reply.js';
import { fromSlackText } from '../slack-text.js';
import { escapeMrkdwn } from '../render-blocks.js';

export function backtestCommand(deps: SlackReceiverDeps, gate: Gate) {
  return async ({ ack, command, client, respond, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    const text = fromSlackText(command.text);
    if (!text || /^help$/i.test(text)) {
      // the help's own examples hold < and >: escaped, or Slack reads "< 30 sell: RSI(14) >" as a link
      await ack({ response_type: 'ephemeral', text: escapeMrkdwn(RULE_SYNTAX_HELP) });
      return;
    }
    const origin = originOf(context);
    const verdict = admit(gate, { workspace: origin.workspace, channel: command.channel_id, userId: command.user_id });
    if (!verdict.go) {
      await ack({ response_type: 'ephemeral', text: verdict.tellUser ?? 'Not here, sorry.' });
      return;
    }
    await ack();
    let threadTs: string;
    try {
      // what the person typed goes back out escaped: "RSI(14) < 30" is text, not a Slack link
      const parent = await client.chat.postMessage({
        channel: command.channel_id,
        text: `<@${command.user_id}> asked for a backtest: \`${escapeMrkdwn(text.replace(/`/g, "'"))}\``,
      });
      threadTs = parent.ts!;
    } catch (error) {
      deps.logger.error(`slack /backtest: ${(error as Error).message}`);
      await respond({
        response_type: 'ephemeral',
        text: 'I could not post in this channel. Is the bot a member of it? (/invite @Data Desk)',
      });
      return;
    }
    try {
      const key = `slack:command:${command.trigger_id ?? `${command.channel_id}:${threadTs}`}`;
      await enqueueInThread(
        deps,
        { client, ...origin, channel: command.channel_id, threadTs, userId: command.user_id },
        key,
        inbound(origin, command.channel_id, threadTs, command.user_id, text, 'backtest'),
      );
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      await client.chat.postMessage({
        channel: command.channel_id,
        thread_ts: threadTs,
        text: DATABASE_UNAVAILABLE_MESSAGE,
        metadata: NOTICE_METADATA,
      });
    }
  };
}
