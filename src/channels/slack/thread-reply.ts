// The receiver's side of a Slack question: admit the delivery and queue its
// job (a duplicate delivery stops here), then put a placeholder in the thread
// that says where the question is in line. The answering runs in a worker
// (slack-reply-sink.ts), which replaces that placeholder with the answer.
import type { WebClient } from '@slack/web-api';
import type { InboundMessage } from '../../agents/desk.js';
import type { Logger } from '../../core/logger.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { Deliveries } from '../../jobs/deliveries.js';
import type { AnswerQueue } from '../../jobs/queue.js';
import { placeholderFor, slackErrorCode, WORKING } from './slack-reply-sink.js';
import { fromSlackText } from './slack-text.js';

export interface SlackReceiverDeps {
  queue: AnswerQueue;
  deliveries: Deliveries;
  logger: Logger;
}

export const slackThreadId = (channel: string, threadTs: string) => `slack:${channel}:${threadTs}`;

export interface ThreadTarget {
  client: WebClient;
  channel: string;
  threadTs: string;
  userId?: string;
}

/** What a placeholder says while its question waits. */
export function waitingText(ahead: number): string {
  return ahead > 0 ? `:hourglass_flowing_sand: In line: ${ahead} question${ahead === 1 ? '' : 's'} ahead of yours…` : WORKING;
}

/**
 * Queues the question for a worker; returns false for a delivery seen before
 * (nothing is queued or posted). The placeholder that shows the question
 * waiting is posted after this returns, so that Slack's acknowledgement waits
 * for the queue (durable) and not for the Web API (cosmetic): a process killed
 * after the ack has the question in the queue already, and a placeholder lost
 * with it is posted by the worker instead.
 */
export async function enqueueInThread(
  deps: SlackReceiverDeps,
  target: ThreadTarget,
  key: string,
  message: InboundMessage,
  action: AnswerJob['action'] = { type: 'answer' },
): Promise<boolean> {
  const { client, channel, threadTs, userId } = target;
  const queued = await deps.queue.enqueue({ key, message, action, reply: { platform: 'slack', channel, threadTs, userId } });
  if (!queued) {
    deps.logger.debug(`slack: ${key} was delivered before; not answered twice`);
    return false;
  }
  void (async () => {
    const ahead = await deps.deliveries.aheadOf(key);
    const row = await deps.deliveries.get(key);
    // a fast worker may have posted (and even filled) a placeholder already
    if (!row?.placeholder) await placeholderFor({ client, deliveries: deps.deliveries, logger: deps.logger }, key, channel, threadTs, waitingText(ahead));
  })().catch((error) => deps.logger.warn(`slack: the placeholder of ${key} could not be posted (${slackErrorCode(error)}); the worker posts one`));
  return true;
}

/** The question of a mention: the bot's own mention at the start dropped, then Slack's encoding read (see slack-text.ts). */
export const stripMention = (text: string) => fromSlackText(text.replace(/^\s*(<@[A-Z0-9]+(\|[^>]*)?>\s*)+/, ''));

export function inbound(channel: string, threadTs: string, userId: string | undefined, text: string, kind: InboundMessage['kind'] = 'question'): InboundMessage {
  return { platform: 'slack', threadId: slackThreadId(channel, threadTs), channel, userId, text, kind };
}
