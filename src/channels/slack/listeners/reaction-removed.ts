// A 👍 / 👎 reaction taken off an answer: that person's verdict on it is
// withdrawn (src/feedback/feedback.ts), as a reaction added kept it
// (reaction-added.ts). Nothing is posted: the reaction's going is the reply.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describeError } from '../../../core/errors.js';
import { withdrawFeedback } from '../../../feedback/feedback.js';
import { originOf } from '../thread-reply.js';
import { verdictOf, type ReactionDeps } from './reaction-added.js';

export function reactionRemoved(deps: ReactionDeps) {
  return async ({ event, context }: SlackEventMiddlewareArgs<'reaction_removed'> & AllMiddlewareArgs): Promise<void> => {
    const verdict = verdictOf(event.reaction);
    if (!verdict || event.item.type !== 'message') return;
    const { workspace } = originOf(context);
    // the answer of this workspace's message only: another workspace's key is never looked at
    const key = await deps.deliveries.keyOfMessage('slack', workspace, event.item.channel, event.item.ts);
    if (!key) return;
    try {
      if (await withdrawFeedback(deps.pool, { deliveryKey: key, platform: 'slack', userId: event.user, verdict }))
        deps.logger.info(`slack: ${event.user} took back their ${verdict === 'up' ? '👍' : '👎'} on ${key}`);
    } catch (error) {
      deps.logger.warn(`slack: withdrawing feedback on ${key}: ${describeError(error)}`);
    }
  };
}
