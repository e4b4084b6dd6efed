// The App Home tab: what the bot can do, example questions, and how fresh the data is.
import { GUIDE } from '../../../agents/help.js';
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type pg from 'pg';
import { dataFreshness } from '../../../db/freshness.js';
import { escapeMrkdwn } from '../render-blocks.js';

export function appHome(pool: pg.Pool) {
  return async ({ event, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab !== 'home') return;
    const f = await dataFreshness(pool);
    await client.views.publish({
      user_id: event.user,
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
  };
}
