// A click the app does not handle (a button from an older version, a block
// action it never sent): acknowledged, so Slack shows no error, and the clicker
// is told in a short ephemeral sentence instead of nothing happening.
import type { AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../../../core/logger.js';

export const UNKNOWN_ACTION_TEXT = 'That button no longer does anything. Ask your question again to get a fresh answer.';

export function unknownAction(logger: Logger) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const b = body as {
      channel?: { id?: string };
      user?: { id?: string };
      message?: { ts?: string; thread_ts?: string };
      actions?: { action_id?: string }[];
    };
    logger.debug(`slack: a click on ${b.actions?.[0]?.action_id ?? 'an unknown action'} that nothing handles`);
    if (!b.channel?.id || !b.user?.id) return;
    await client.chat
      .postEphemeral({
        channel: b.channel.id,
        user: b.user.id,
        thread_ts: b.message?.thread_ts ?? b.message?.ts,
        text: UNKNOWN_ACTION_TEXT,
      })
      .catch((error: Error) => logger.debug(`slack: could not tell the clicker (${error.message})`));
  };
}
