// A click on a clarification button: the clarification shows the choice and
// loses its buttons, and the waiting question is queued (keyed by the
// message and the term, so a double click is one answer) to be answered in
// the thread with the choice. A stale click (the question was answered or
// expired) or someone else's click gets an ephemeral sentence.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { enqueueInThread, inbound, slackThreadId, type SlackReceiverDeps } from '../thread-reply.js';
import { queueOrTell } from './gatekeeper.js';
import { clickOf } from './click.js';
import type { DataDesk } from '../../../agents/desk.js';
import { glossary, option } from '../../../knowledge/glossary.js';
import { escapeMrkdwn } from '../render-blocks.js';

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The desk is asked only which choice the thread waits for (its thread memory). */
export function clarifyChoice(deps: SlackReceiverDeps & { desk: Pick<DataDesk, 'pendingChoice'> }) {
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
    const { channel, threadTs, say } = click;
    const { origin } = click;
    const threadId = slackThreadId(origin, channel, threadTs);
    let choice: { term?: string; option?: string } = {};
    try {
      choice = JSON.parse(action.value ?? '{}');
    } catch {
      /* handled below */
    }
    const pending = await deps.desk.pendingChoice(threadId);
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
    await client.chat
      .update({
        channel,
        ts: click.messageTs,
        text: settled,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `:white_check_mark: ${settled}` } }],
      })
      .catch((error: Error) => deps.logger.warn(`slack: could not mark the clarification answered: ${error.message}`));
    const choiceMessage = inbound(origin, channel, threadTs, body.user.id, `(choice ${choice.term}=${choice.option})`);
    await queueOrTell(async () => {
      const queued = await enqueueInThread(
        deps,
        { client, ...origin, channel, threadTs, userId: body.user.id },
        `slack:click:${channel}:${click.messageTs}:${choice.term}`,
        choiceMessage,
        {
          type: 'choose',
          term: choice.term!,
          option: choice.option!,
        },
      );
      if (!queued) await say('That choice is already being answered.');
    }, say);
  };
}
