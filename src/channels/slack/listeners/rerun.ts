// "Re-run on today's data" under a plan answer: the button carries the answer's
// resolved plan and its numbers then (core/rerun.ts); the plan is asked again
// in the answer's thread by the person who clicked, and the new answer says
// what changed since. Keyed by the message and the day, so a double click asks
// once (a click on another day asks again).
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { admit, type Gate } from '../../inbox.js';
import { enqueueInThread, inbound, type SlackReceiverDeps } from '../thread-reply.js';
import { queueOrTell } from './gatekeeper.js';
import { clickOf } from './click.js';
import { decodeRerun } from '../../../core/rerun.js';

export function rerun(deps: SlackReceiverDeps, gate: Gate) {
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
    const { channel, threadTs, say, origin } = click;
    const asked = decodeRerun(action.value ?? '');
    if (!asked) return void (await say('That Re-run button is from an older message; ask the question again in the thread.'));
    // a click costs what a follow-up costs; a refusal is for the person who clicked, not a failed turn in the thread
    const verdict = admit(gate, { workspace: origin.workspace, channel, userId: body.user.id, click: true });
    if (!verdict.go) {
      if (verdict.tellUser) await client.chat.postEphemeral({ channel, user: body.user.id, thread_ts: threadTs, text: verdict.tellUser });
      return;
    }
    const today = new Date().toISOString().slice(0, 10);
    await queueOrTell(async () => {
      const queued = await enqueueInThread(
        deps,
        { client, ...origin, channel, threadTs, userId: body.user.id },
        `slack:rerun:${channel}:${click.messageTs}:${today}`,
        { ...inbound(origin, channel, threadTs, body.user.id, 'Re-run on today’s data'), plan: asked.plan, rerun: asked.baseline },
      );
      if (!queued) await say('That answer was re-run today already; the new answer is in the thread.');
    }, say);
  };
}
