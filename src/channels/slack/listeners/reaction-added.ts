// 👍 / 👎 reactions on an answer: feedback (see src/feedback/feedback.ts). The
// answer is known by the message it replaced (the placeholder's ts, kept on
// its delivery). A curator's 👍 (CURATORS) makes the question verified; the
// reactor is told so, and told a 👎 was noted. Reactions on anything else
// (other messages, other emoji) are not ours to read.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../../../core/logger.js';
import { describeError } from '../../../core/errors.js';
import { keepVerdict, type FeedbackKeeper, type Verdict } from '../../../feedback/feedback.js';
import { originOf } from '../thread-reply.js';

/** Slack's names of the thumbs (with their skin tones, "+1::skin-tone-3"). */
export function verdictOf(reaction: string): Verdict | undefined {
  const name = reaction.split('::')[0];
  if (name === '+1' || name === 'thumbsup') return 'up';
  if (name === '-1' || name === 'thumbsdown') return 'down';
  return undefined;
}

export interface ReactionDeps extends FeedbackKeeper {
  logger: Logger;
}

export function reactionAdded(deps: ReactionDeps) {
  return async ({ event, client, context }: SlackEventMiddlewareArgs<'reaction_added'> & AllMiddlewareArgs): Promise<void> => {
    const verdict = verdictOf(event.reaction);
    if (!verdict || event.item.type !== 'message') return;
    const { workspace } = originOf(context);
    const key = await deps.deliveries.keyOfMessage('slack', workspace, event.item.channel, event.item.ts);
    if (!key) return;
    try {
      const outcome = await keepVerdict(deps, { deliveryKey: key, platform: 'slack', workspace, userId: event.user, verdict });
      // a retried event (or the same thumb again) says nothing twice. The verdict is stored before Slack gets its
      // acknowledgement; the note to the reactor is not waited for (a slow Slack API would hold the ack for seconds)
      if (!outcome.repeated && (outcome.promoted || verdict === 'down'))
        void client.chat
          .postEphemeral({ channel: event.item.channel, user: event.user, text: outcome.message })
          .catch((error) => deps.logger.warn(`slack: the feedback note on ${key} could not be posted: ${describeError(error)}`));
    } catch (error) {
      deps.logger.warn(`slack: feedback on ${key}: ${describeError(error)}`);
    }
  };
}
