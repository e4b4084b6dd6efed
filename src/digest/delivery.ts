// Posting a digest into its channel: Slack through the Web API, Teams through
// the stored conversation reference (proactive message). A channel that is
// gone (bot removed, archived, deleted) is reported as such, so the scheduler
// disables the subscription instead of retrying forever.
import type { WebClient } from '@slack/web-api';
import { CardFactory, type CloudAdapter } from 'botbuilder';
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import { renderChart } from '../charts/render.js';
import { renderAnswerMessages } from '../channels/slack/render-blocks.js';
import { answerCard, answerSummary, chartImage } from '../channels/teams/render-card.js';
import { loadConversationReference } from '../channels/teams/conversation-store.js';
import type { Subscription } from './subscriptions.js';

export class ChannelGoneError extends Error {}

export type Deliver = (sub: Subscription, answer: Answer) => Promise<void>;

const SLACK_GONE = new Set(['channel_not_found', 'not_in_channel', 'is_archived', 'account_inactive', 'team_access_not_granted']);

export function slackDelivery(client: WebClient, quickchartUrl?: string): Deliver {
  return async (sub, answer) => {
    try {
      const [first, ...rest] = renderAnswerMessages(answer);
      const parent = await client.chat.postMessage({ channel: sub.channel, text: first.text, blocks: first.blocks });
      for (const m of rest) await client.chat.postMessage({ channel: sub.channel, thread_ts: parent.ts, text: m.text, blocks: m.blocks });
      if (answer.kind === 'result' && answer.chart) {
        await client.files.uploadV2({ channel_id: sub.channel, thread_ts: parent.ts!, file: await renderChart(answer.chart, quickchartUrl), filename: 'digest.png', title: answer.chart.title });
      }
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (code && SLACK_GONE.has(code)) throw new ChannelGoneError(`Slack says ${code} for channel ${sub.channel}`);
      throw error;
    }
  };
}

export function teamsDelivery(adapter: CloudAdapter, appId: string, pool: pg.Pool, chartLink: (png: Buffer) => string, quickchartUrl?: string): Deliver {
  return async (sub, answer) => {
    const reference = await loadConversationReference(pool, sub.channel);
    if (!reference) throw new ChannelGoneError(`no stored Teams conversation ${sub.channel}`);
    const chart = answer.kind === 'result' && answer.chart ? chartImage(await renderChart(answer.chart, quickchartUrl), answer.chart.title, chartLink) : undefined;
    try {
      await adapter.continueConversationAsync(appId, reference, async (context) => {
        await context.sendActivity({ type: 'message', text: answerSummary(answer), attachments: [CardFactory.adaptiveCard(answerCard(answer, chart))] });
      });
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 403 || status === 404) throw new ChannelGoneError(`Teams answered ${status} for conversation ${sub.channel}`);
      throw error;
    }
  };
}
