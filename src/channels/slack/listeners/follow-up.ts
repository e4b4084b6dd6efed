// A suggested follow-up button under an answer ("by month", "only arrests"):
// asked in the answer's thread by the person who clicked, as if typed there,
// so it edits that answer's plan. Keyed by the message and the button, so a
// double click asks once.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { enqueueInThread, inbound, type SlackReceiverDeps } from '../thread-reply.js';
import { admit, queueOrTell, type Gate } from './gatekeeper.js';

export function followUp(deps: SlackReceiverDeps, gate: Gate) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const channel = body.channel?.id;
    const message = body.message as { ts: string; thread_ts?: string } | undefined;
    const text = (action.value ?? '').trim();
    if (!channel || !message || !text) return;
    const threadTs = message.thread_ts ?? message.ts;
    const say = (t: string) => client.chat.postEphemeral({ channel, user: body.user.id, thread_ts: threadTs, text: t });
    const verdict = admit(gate, channel, body.user.id);
    if (!verdict.go) {
      if (verdict.tellUser) await say(verdict.tellUser);
      return;
    }
    await queueOrTell(async () => {
      const queued = await enqueueInThread(deps, { client, channel, threadTs, userId: body.user.id }, `slack:click:${channel}:${message.ts}:${action.action_id}`, inbound(channel, threadTs, body.user.id, text));
      if (!queued) await say('That follow-up was asked already; its answer is in the thread.');
    }, say);
  };
}
