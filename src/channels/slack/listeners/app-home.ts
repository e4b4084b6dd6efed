// The App Home tab: what the bot can do, example questions, and how fresh the data is.
import { GUIDE } from '../../../agents/help.js';
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type pg from 'pg';
import { dataFreshness } from '../../../db/freshness.js';
import { escapeMrkdwn } from '../render-blocks.js';
import type { Logger } from '../../../core/logger.js';
import { describeError } from '../../../core/errors.js';

export function appHome(pool: pg.Pool, logger: Logger) {
  return async ({ event, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab !== 'home') return;
    // published after Slack has its acknowledgement: nothing here is worth a retry, and a slow Slack API (or
    // database) would otherwise hold the ack for seconds
    void publish(client, event.user).catch((error) =>
      logger.warn(`slack: the App Home of ${event.user} was not published: ${describeError(error)}`),
    );
  };

  async function publish(client: AllMiddlewareArgs['client'], user: string): Promise<void> {
    const f = await dataFreshness(pool);
    await client.views.publish({
      user_id: user,
      view: {
        type: 'home',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'Data Desk' } },
          { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(GUIDE).slice(0, 3_000) } },
          { type: 'divider' },
          {
            type: 'context',
            elements: [
              {
                type: 'mrkdwn',
                text: `Data: ${f.crimes.rows.toLocaleString('en-US')} crimes through ${f.crimes.latest ?? 'none yet'}; ${f.stocks.rows.toLocaleString('en-US')} daily bars through ${f.stocks.latest ?? 'none yet'}.`,
              },
            ],
          },
        ],
      },
    });
  }
}
