// A click on a clarification button: the choice is stored for the thread and
// the waiting question is answered there. A stale click (the question was
// answered or expired) or someone else's click gets an ephemeral sentence.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { answerInThread, slackThreadId, type SlackDeps } from '../thread-reply.js';
import { glossary, option } from '../../../knowledge/glossary.js';
import { escapeMrkdwn } from '../render-blocks.js';

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function clarifyChoice(deps: SlackDeps) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const channel = body.channel?.id;
    const message = body.message as { ts: string; thread_ts?: string } | undefined;
    if (!channel || !message) return;
    const threadTs = message.thread_ts ?? message.ts;
    const threadId = slackThreadId(channel, threadTs);
    let choice: { term?: string; option?: string } = {};
    try {
      choice = JSON.parse(action.value ?? '{}');
    } catch {
      /* handled below */
    }
    const pending = await deps.desk.pendingChoice(threadId);
    const say = (text: string) => client.chat.postEphemeral({ channel, user: body.user.id, thread_ts: threadTs, text });
    if (!choice.term || !choice.option || !pending || pending.term !== choice.term) {
      await say('That question was already answered or has expired. Ask it again to get fresh choices.');
      return;
    }
    if (pending.userId && pending.userId !== body.user.id) {
      await say(`<@${pending.userId}> asked this question; the choice is theirs. Ask your own question in a new thread.`);
      return;
    }
    // the question shows what was chosen and by whom, and its buttons go: a second click has nothing to press
    const chosen = option(choice.term, choice.option);
    const label = glossary().find((t) => t.id === choice.term)?.label ?? choice.term;
    const settled = `${capitalize(label)} = ${escapeMrkdwn(chosen?.label ?? choice.option)}, chosen by <@${body.user.id}>`;
    await client.chat.update({ channel, ts: message.ts, text: settled, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `:white_check_mark: ${settled}` } }] })
      .catch((error: Error) => deps.logger.warn(`slack: could not mark the clarification answered: ${error.message}`));
    await answerInThread(deps, { client, channel, threadTs, userId: body.user.id }, (progress) =>
      deps.desk.choose({ platform: 'slack', threadId, channel, userId: body.user.id }, choice.term!, choice.option!, progress),
    );
  };
}
