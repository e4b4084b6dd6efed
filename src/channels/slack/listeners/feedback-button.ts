// 👍 / 👎 as Slack's feedback_buttons under an answer: the same feedback as
// the reactions (reaction-added.ts), the answer known by the message the
// buttons are on. The clicker alone is told what it did (a curator's 👍 makes
// the question verified); a 👎 opens a box for what was wrong (feedback-reason.ts)
// instead of a note. A second click of the same verdict takes it back (undo),
// as taking a reaction off does (reaction-removed.ts).
// A note that cannot be posted is logged, never thrown: the click is still
// acknowledged with 200 (a 500 would have Slack send the click again).
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describeError, UserError } from '../../../core/errors.js';
import { keepVerdict, withdrawFeedback } from '../../../feedback/feedback.js';
import { openReasonBox } from './feedback-reason.js';
import type { ReactionDeps } from './reaction-added.js';
import { clickOf } from './click.js';

type FeedbackAction = { type: 'feedback_buttons'; action_id: string; value?: string };

export function feedbackButton(deps: ReactionDeps) {
  return async ({ ack, body, action, client, context }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const click = clickOf(body, client, context);
    const value = (action as unknown as FeedbackAction).value;
    if (!click || (value !== 'up' && value !== 'down')) return;
    const { workspace } = click.origin;
    const say = (text: string) =>
      click.say(text).then(
        () => undefined,
        (error: unknown) => deps.logger.warn(`slack: the feedback note to ${click.userId} could not be posted: ${describeError(error)}`),
      );
    const key = await deps.deliveries.keyOfMessage('slack', workspace, click.channel, click.messageTs);
    if (!key) {
      await say('I no longer keep that answer, so the feedback could not be recorded; ask again and rate the new one.');
      return;
    }
    try {
      const outcome = await keepVerdict(deps, { deliveryKey: key, platform: 'slack', workspace, userId: click.userId, verdict: value });
      if (outcome.repeated) {
        // the same button again: an undo (a pair a curator's 👍 made stays; datadesk verified remove)
        await withdrawFeedback(deps.pool, { deliveryKey: key, platform: 'slack', userId: click.userId, verdict: value });
        return void (await say(`Your ${value === 'up' ? '👍' : '👎'} on this answer is taken back.`));
      }
      if (value === 'down') {
        const metadata = { key, channel: click.channel, threadTs: click.threadTs, ...(workspace ? { workspace } : {}) };
        if (await openReasonBox(client, body.trigger_id, metadata, deps)) return;
      }
      await say(outcome.message);
    } catch (error) {
      // an answer from another workspace, or one no longer kept, is told as such; a failure is worth another try
      if (error instanceof UserError) return void (await say(error.message));
      deps.logger.warn(`slack: feedback on ${key}: ${describeError(error)}`);
      await say('The feedback could not be recorded just now; please try again in a moment.');
    }
  };
}
