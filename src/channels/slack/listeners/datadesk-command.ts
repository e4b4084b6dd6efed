// /datadesk help | digest ...: the guide, and digest subscriptions for the channel.
import { GUIDE } from '../../../agents/help.js';
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type pg from 'pg';
import { UserError } from '../../../core/errors.js';
import { digestCommand } from '../../../digest/subscriptions.js';
import { fromSlackText } from '../slack-text.js';
import { originOf } from '../thread-reply.js';
import { cutText, escapeMrkdwn, TEXT_LIMIT } from '../render-blocks.js';

export function datadeskCommand(pool: pg.Pool, defaultTimezone: string) {
  return async ({ ack, command, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    const text = fromSlackText(command.text);
    if (/^digests?\b/i.test(text)) {
      try {
        const reply = await digestCommand(pool, text, {
          platform: 'slack',
          ...originOf(context),
          channel: command.channel_id,
          userId: command.user_id,
          defaultTimezone,
        });
        // help and the list are for the one who asked; a new or stopped digest is news for the channel
        const forAsker = /^digests?\s*(help\s*)?$|^digests?\s+list\b/i.test(text);
        await ack({ response_type: forAsker ? 'ephemeral' : 'in_channel', text: cutText(escapeMrkdwn(reply), TEXT_LIMIT) });
      } catch (error) {
        await ack({
          response_type: 'ephemeral',
          text: error instanceof UserError ? escapeMrkdwn(error.message) : 'The digest could not be saved; please try again.',
        });
      }
      return;
    }
    await ack({ response_type: 'ephemeral', text: escapeMrkdwn(GUIDE) });
  };
}
