// A suggested follow-up button under an answer ("by month", "only arrests"):
// asked in the answer's thread by the person who clicked. The button carries
// the plan it asks (the edit of the plan of the answer it sits under), so it
// answers that answer even after later questions. Keyed by the message and
// the button, so a double click asks once.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { admit, type Gate } from '../../inbox.js';
import { enqueueInThread, inbound, type SlackReceiverDeps } from '../thread-reply.js';
import { queueOrTell } from './gatekeeper.js';
import { clickOf } from './click.js';
import { decodeFollowUp } from '../../../core/follow-up-value.js';

export function followUp(deps: SlackReceiverDeps, gate: Gate) {
  return async ({
    ack,
    body,
    action,
    client,
    context,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const click = clickOf(body, client, context);
    const { text, plan } = decodeFollowUp((action.value ?? '').trim());
    if (!click || !text.trim()) return;
    const { channel, threadTs, say } = click;
    const { origin } = click;
    const verdict = admit(gate, { workspace: origin.workspace, channel, userId: body.user.id, click: true });
    if (!verdict.go) {
      // only the person who clicked sees why: a refused turn does not stay in the thread
      if (verdict.tellUser) await client.chat.postEphemeral({ channel, user: body.user.id, thread_ts: threadTs, text: verdict.tellUser });
      return;
    }
    await queueOrTell(async () => {
      const queued = await enqueueInThread(
        deps,
        { client, ...origin, channel, threadTs, userId: body.user.id },
        `slack:click:${channel}:${click.messageTs}:${action.action_id}`,
        { ...inbound(origin, channel, threadTs, body.user.id, text.trim()), ...(plan ? { plan } : {}) },
      );
      if (!queued) await say('That follow-up was asked already; its answer is in the thread.');
    }, say);
  };
}
