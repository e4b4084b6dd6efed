// 👍/👎 on an answer card: kept; a curator's 👍 makes the question verified
// (in this tenant only). Only a card of this conversation counts.
import { UserError } from '../../../core/errors.js';
import { keepVerdict } from '../../../feedback/feedback.js';
import type { TeamsBotDeps, TeamsTurn } from './turn.js';

export async function feedbackClick(deps: TeamsBotDeps, { context, value, userId, workspace }: TeamsTurn): Promise<void> {
  const { feedback } = deps;
  const key = typeof value?.key === 'string' ? value.key : '';
  const delivery = key ? await deps.deliveries.get(key) : undefined;
  const verdict = value?.verdict;
  if (
    !feedback ||
    !userId ||
    !delivery ||
    delivery.channel !== context.activity.conversation.id ||
    (verdict !== 'up' && verdict !== 'down')
  ) {
    await context.sendActivity('That answer can no longer take feedback (answers are kept for 3 days).');
    return;
  }
  try {
    const keeper = { pool: deps.pool, deliveries: deps.deliveries, ...feedback };
    const outcome = await keepVerdict(keeper, { deliveryKey: key, platform: 'teams', workspace, userId, verdict });
    await context.sendActivity(outcome.message);
  } catch (error) {
    await context.sendActivity(error instanceof UserError ? error.message : 'The feedback could not be kept this time; please try again.');
  }
}
