// Teams' own 👍/👎 under an answer (the feedback loop: channelData
// feedbackLoopEnabled on the answer, see teams-outbox.ts). Teams sends the
// verdict as an invoke, message/submitAction with actionName "feedback", on
// the answer's activity id; it is kept as a card's 👍/👎 is (a curator's 👍
// makes the question verified), and nothing is posted in the conversation:
// Teams itself shows the person that the feedback went in.
import type { InvokeResponse } from 'botbuilder';
import { describeError } from '../../../core/errors.js';
import { keepVerdict } from '../../../feedback/feedback.js';
import type { TeamsBotDeps, TeamsTurn } from './turn.js';

/** The invoke value Teams sends: a like or dislike, and what the person typed in its form. */
interface FeedbackLoopValue {
  actionName?: string;
  actionValue?: { reaction?: string; feedback?: unknown };
}

export const isFeedbackLoop = (name: string | undefined, value: unknown) =>
  name === 'message/submitAction' && (value as FeedbackLoopValue | undefined)?.actionName === 'feedback';

export async function feedbackLoop(deps: TeamsBotDeps, { context, userId, workspace }: TeamsTurn): Promise<InvokeResponse> {
  const reaction = (context.activity.value as FeedbackLoopValue).actionValue?.reaction;
  const verdict = reaction === 'like' ? 'up' : reaction === 'dislike' ? 'down' : undefined;
  const answerId = context.activity.replyToId;
  if (!deps.feedback || !verdict || !userId || !answerId) return { status: 400, body: { error: 'not a like or dislike of an answer' } };
  const key = await deps.deliveries.keyOfMessage('teams', workspace, context.activity.conversation.id, answerId);
  // an answer no longer kept (or not ours) takes no feedback; Teams still shows the person theirs was sent
  if (!key) return { status: 200 };
  try {
    await keepVerdict(
      { pool: deps.pool, deliveries: deps.deliveries, ...deps.feedback },
      {
        deliveryKey: key,
        platform: 'teams',
        workspace,
        userId,
        verdict,
      },
    );
  } catch (error) {
    deps.logger.warn(`teams: feedback on ${key}: ${describeError(error)}`);
  }
  return { status: 200 };
}
