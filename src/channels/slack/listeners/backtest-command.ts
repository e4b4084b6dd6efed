// /backtest RULES OR TEXT: acknowledged at once; the request is posted in the
// channel as a thread parent and the answer follows in that thread.
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { RULE_SYNTAX_HELP } from '../../../agents/backtest/help.js';
import { answerInThread, inbound, type SlackDeps } from '../thread-reply.js';
import { admit, type Gate } from './gatekeeper.js';
import { fromSlackText } from '../slack-text.js';
import { escapeMrkdwn } from '../render-blocks.js';

export function backtestCommand(deps: SlackDeps, gate: Gate) {
  return async ({ ack, command, client, respond }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    const text = fromSlackText(command.text);
    if (!text || /^help$/i.test(text)) {
      await ack({ response_type: 'ephemeral', text: RULE_SYNTAX_HELP });
      return;
    }
    const verdict = admit(gate, command.channel_id, command.user_id);
    if (!verdict.go) {
      await ack({ response_type: 'ephemeral', text: verdict.tellUser ?? 'Not here, sorry.' });
      return;
    }
    await ack();
    try {
      // what the person typed goes back out escaped: "RSI(14) < 30" is text, not a Slack link
      const parent = await client.chat.postMessage({ channel: command.channel_id, text: `<@${command.user_id}> asked for a backtest: \`${escapeMrkdwn(text.replace(/`/g, "'"))}\`` });
      const threadTs = parent.ts!;
      await answerInThread(deps, { client, channel: command.channel_id, threadTs, userId: command.user_id }, (progress) =>
        deps.desk.answer(inbound(command.channel_id, threadTs, command.user_id, text, 'backtest'), progress),
      );
    } catch (error) {
      deps.logger.error(`slack /backtest: ${(error as Error).message}`);
      await respond({ response_type: 'ephemeral', text: 'I could not post in this channel. Is the bot a member of it? (/invite @Data Desk)' });
    }
  };
}
