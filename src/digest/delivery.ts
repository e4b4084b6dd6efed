// Posting a digest into its channel, as separate steps the scheduler records
// one by one (so a retry redoes only what is missing): the post, the rest of a
// long answer in its thread, the chart upload. Slack goes through the Web API,
// each post carrying message metadata with the digest's key (subscription and
// period) so that a post whose reply was lost (a crash, a timeout) can be found
// again in the channel's history instead of being posted twice. Teams goes
// through the stored conversation reference (proactive message) with the chart
// inside the card. A channel that is gone (bot removed, archived, deleted) is
// reported as such, so the scheduler disables the subscription instead of
// retrying forever.
import type { WebClient } from '@slack/web-api';
import { CardFactory, type CloudAdapter } from 'botbuilder';
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import { renderChart } from '../charts/render.js';
import { renderAnswerMessages } from '../channels/slack/render-blocks.js';
import { answerCard, answerSummary, chartForCard } from '../channels/teams/render-card.js';
import { loadConversationReference } from '../channels/teams/conversation-store.js';
import type { Subscription } from './subscriptions.js';

export class ChannelGoneError extends Error {}

/** The history of the channel cannot be read (a missing scope): a lost post cannot be looked for. */
export class HistoryUnavailableError extends Error {}

/** The identity of one digest post: which subscription, which period. */
export interface DigestKey {
  subscriptionId: number;
  periodEnd: Date;
}

/** The event type of the message metadata on every Slack digest post. */
export const DIGEST_EVENT_TYPE = 'datadesk_digest';

/** The metadata a Slack digest post carries (chat.postMessage `metadata`). */
export function digestMetadata(key: DigestKey): { event_type: string; event_payload: { subscription_id: number; period_end: string } } {
  return { event_type: DIGEST_EVENT_TYPE, event_payload: { subscription_id: key.subscriptionId, period_end: key.periodEnd.toISOString() } };
}

/** One platform's delivery, in steps. */
export interface Deliver {
  /** Posts the answer (its first message); returns the post's id (Slack ts, Teams activity id). */
  post(sub: Subscription, answer: Answer, key: DigestKey): Promise<string>;
  /**
   * Posts the rest of a long answer in the post's thread, from continuation number `done` on,
   * calling `posted(n)` after the n-th one. Absent: the answer is always one message.
   */
  postRest?(sub: Subscription, answer: Answer, postId: string, done: number, posted: (n: number) => Promise<void>): Promise<void>;
  /** Whether the chart is a separate upload for this answer (else it is part of the post or there is none). */
  chartIsSeparate?(answer: Answer): boolean;
  /** Uploads the answer's chart into the post's thread. */
  uploadChart?(sub: Subscription, answer: Answer, postId: string): Promise<void>;
  /**
   * Looks for an earlier post of this key in the channel (made at or after the period's end); its id, or
   * undefined. Absent: the platform cannot tell. Throws HistoryUnavailableError when the history cannot be read.
   */
  findPost?(sub: Subscription, key: DigestKey): Promise<string | undefined>;
}

const SLACK_GONE = new Set(['channel_not_found', 'not_in_channel', 'is_archived', 'account_inactive', 'team_access_not_granted']);
const SLACK_NO_HISTORY = new Set(['missing_scope', 'not_allowed_token_type', 'no_permission']);
/** how far back (in messages after the period's end) a lost post is looked for */
const HISTORY_PAGES = 5;
const HISTORY_PAGE_SIZE = 200;

const slackCode = (error: unknown) => (error as { data?: { error?: string } }).data?.error;

async function slackCall<T>(sub: Subscription, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code = slackCode(error);
    if (code && SLACK_GONE.has(code)) throw new ChannelGoneError(`Slack says ${code} for channel ${sub.channel}`);
    throw error;
  }
}

interface HistoryMessage {
  ts?: string;
  thread_ts?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

export function slackDelivery(client: WebClient, quickchartUrl?: string): Deliver {
  return {
    async post(sub, answer, key) {
      const [first] = renderAnswerMessages(answer);
      const res = await slackCall(sub, () => client.chat.postMessage({ channel: sub.channel, text: first.text, blocks: first.blocks, metadata: digestMetadata(key) }));
      if (!res.ts) throw new Error('Slack answered chat.postMessage without a ts');
      return res.ts;
    },
    async postRest(sub, answer, postId, done, posted) {
      const rest = renderAnswerMessages(answer).slice(1);
      for (let i = done; i < rest.length; i++) {
        await slackCall(sub, () => client.chat.postMessage({ channel: sub.channel, thread_ts: postId, text: rest[i].text, blocks: rest[i].blocks }));
        await posted(i + 1);
      }
    },
    chartIsSeparate: (answer) => answer.kind === 'result' && Boolean(answer.chart),
    async uploadChart(sub, answer, postId) {
      if (answer.kind !== 'result' || !answer.chart) return;
      const chart = answer.chart;
      const file = await renderChart(chart, quickchartUrl);
      await slackCall(sub, () => client.files.uploadV2({ channel_id: sub.channel, thread_ts: postId, file, filename: 'digest.png', title: chart.title }));
    },
    async findPost(sub, key) {
      const periodEnd = key.periodEnd.toISOString();
      let cursor: string | undefined;
      for (let page = 0; page < HISTORY_PAGES; page++) {
        let res;
        try {
          res = await slackCall(sub, () => client.conversations.history({
            channel: sub.channel, oldest: (key.periodEnd.getTime() / 1000).toFixed(6), inclusive: true, include_all_metadata: true, limit: HISTORY_PAGE_SIZE, cursor,
          }));
        } catch (error) {
          const code = slackCode(error);
          if (code && SLACK_NO_HISTORY.has(code)) throw new HistoryUnavailableError(`Slack says ${code} for conversations.history (the app needs channels:history and groups:history)`);
          throw error;
        }
        const found = (res.messages as HistoryMessage[] | undefined)?.find((m) =>
          m.metadata?.event_type === DIGEST_EVENT_TYPE
          && Number(m.metadata.event_payload?.subscription_id) === key.subscriptionId
          && m.metadata.event_payload?.period_end === periodEnd);
        if (found?.ts) return found.ts;
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!res.has_more || !cursor) return undefined;
      }
      return undefined;
    },
  };
}

export function teamsDelivery(adapter: CloudAdapter, appId: string, pool: pg.Pool, chartLink: (png: Buffer) => string, quickchartUrl?: string): Deliver {
  return {
    async post(sub, answer) {
      const reference = await loadConversationReference(pool, sub.channel);
      if (!reference) throw new ChannelGoneError(`no stored Teams conversation ${sub.channel}`);
      const chart = await chartForCard(answer, chartLink, quickchartUrl);
      let id: string | undefined;
      try {
        await adapter.continueConversationAsync(appId, reference, async (context) => {
          const sent = await context.sendActivity({ type: 'message', text: answerSummary(answer), attachments: [CardFactory.adaptiveCard(answerCard(answer, chart))] });
          id = sent?.id;
        });
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status === 403 || status === 404) throw new ChannelGoneError(`Teams answered ${status} for conversation ${sub.channel}`);
        throw error;
      }
      // the connector may answer without an id; the post still happened
      return id ?? '';
    },
  };
}
