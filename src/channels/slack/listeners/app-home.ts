// The App Home tab: what the bot can do, how fresh the data is, and this
// workspace's own knowledge: the verified questions that answer here (its
// curators' first, then the shipped ones every workspace shares) and the
// digests its channels receive. Nothing of another workspace is listed.
import { GUIDE } from '../../../agents/help.js';
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type pg from 'pg';
import { dataFreshness } from '../../../db/freshness.js';
import { cutText, escapeMrkdwn } from '../render-blocks.js';
import type { Block } from '../block-types.js';
import type { Logger } from '../../../core/logger.js';
import { describeError } from '../../../core/errors.js';
import type { VerifiedStore } from '../../../verified/verified-store.js';
import { workspaceSubscriptions, type Subscription } from '../../../digest/subscriptions.js';
import { originOf } from '../thread-reply.js';
import { scopeOf } from '../../../knowledge/scope.js';

/** How many verified questions the tab lists (a view holds 100 blocks; the list is one section per 10). */
const QUESTIONS_SHOWN = 30;
const DIGESTS_SHOWN = 20;

const context = (text: string): Block => ({ type: 'context', elements: [{ type: 'mrkdwn', text, verbatim: true }] });
const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text: cutText(text, 3_000), verbatim: true } });

function digestLine(s: Subscription): string {
  const what =
    s.kind === 'crime'
      ? 'the crime digest'
      : s.kind === 'accuracy'
        ? 'the accuracy score'
        : `${s.kind === 'backtest' ? 'a backtest watch' : 'a saved question'}: ${escapeMrkdwn(cutText(s.topic ?? '', 200))}`;
  // a channel id is shown as Slack's channel mention (the one link syntax kept: the id is Slack's, never typed)
  const channel = /^[CGD][A-Z0-9]+$/.test(s.channel) ? `<#${s.channel}>` : escapeMrkdwn(s.channel);
  return `• #${s.id} in ${channel}: ${what} (\`${escapeMrkdwn(s.cron)}\`, ${escapeMrkdwn(s.timezone)})`;
}

export function appHome(pool: pg.Pool, logger: Logger, verified?: VerifiedStore) {
  return async ({ event, client, context: ctx }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab !== 'home') return;
    // published after Slack has its acknowledgement: nothing here is worth a retry, and a slow Slack API (or
    // database) would otherwise hold the ack for seconds
    void publish(client, event.user, originOf(ctx).workspace).catch((error) =>
      logger.warn(`slack: the App Home of ${event.user} was not published: ${describeError(error)}`),
    );
  };

  async function publish(client: AllMiddlewareArgs['client'], user: string, workspace: string | undefined): Promise<void> {
    const f = await dataFreshness(pool);
    const pairs = verified ? await verified.answeringIn(scopeOf('slack', workspace)!) : [];
    const digests = await workspaceSubscriptions(pool, 'slack', workspace);
    const own = pairs.filter((p) => p.workspace !== null).length;
    const questionBlocks: Block[] = [];
    const shown = pairs.slice(0, QUESTIONS_SHOWN);
    for (let i = 0; i < shown.length; i += 10)
      questionBlocks.push(
        section(
          shown
            .slice(i, i + 10)
            .map((p) => `• ${escapeMrkdwn(cutText(p.question, 250))}${p.workspace ? ' _(verified here)_' : ''}`)
            .join('\n'),
        ),
      );
    await client.views.publish({
      user_id: user,
      view: {
        type: 'home',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'Data Desk' } },
          { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(GUIDE).slice(0, 3_000) } },
          { type: 'divider' },
          { type: 'header', text: { type: 'plain_text', text: 'Verified questions' } },
          context(
            pairs.length
              ? `${pairs.length} question${pairs.length === 1 ? '' : 's'} answered as verified in this workspace (${own} verified by its curators with a 👍), asked in any words that mean the same${pairs.length > QUESTIONS_SHOWN ? `; the first ${QUESTIONS_SHOWN}` : ''}.`
              : 'No verified questions yet: a curator’s 👍 on an answer makes its question one.',
          ),
          ...questionBlocks,
          { type: 'divider' },
          { type: 'header', text: { type: 'plain_text', text: 'Digests' } },
          digests.length
            ? section(digests.slice(0, DIGESTS_SHOWN).map(digestLine).join('\n'))
            : context('No digests in this workspace: `/datadesk digest weekly monday 09:00 America/Chicago` in a channel posts one there.'),
          ...(digests.length > DIGESTS_SHOWN
            ? [context(`and ${digests.length - DIGESTS_SHOWN} more (\`/datadesk digest list\` in each channel)`)]
            : []),
          { type: 'divider' },
          context(
            `Data: ${f.crimes.rows.toLocaleString('en-US')} crimes through ${f.crimes.latest ?? 'none yet'}; ${f.stocks.rows.toLocaleString('en-US')} daily bars through ${f.stocks.latest ?? 'none yet'}.`,
          ),
        ],
      },
    });
  }
}
