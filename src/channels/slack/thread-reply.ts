// The receiver's side of a Slack question: admit the delivery and queue its
// job (a duplicate delivery stops here), then put a placeholder in the thread
// that says where the question is in line. The answering runs in a worker
// (slack-outbox.ts), which replaces that placeholder with the answer.
import type { WebClient } from '@slack/web-api';
import type { InboundMessage } from '../../agents/desk.js';
import type { Logger } from '../../core/logger.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { Deliveries } from '../../jobs/deliveries.js';
import type { AnswerQueue } from '../../jobs/queue.js';
import { inLineText } from '../inbox.js';
import { placeholderFor, slackErrorCode, WORKING, type SlackReplyTarget } from './slack-outbox.js';
import { fromSlackText } from './slack-text.js';
import { StreamSupport } from './answer-stream.js';

export interface SlackReceiverDeps {
  queue: AnswerQueue;
  deliveries: Deliveries;
  logger: Logger;
  /** whether the placeholder is a stream (answer-stream.ts) where Slack can; unset: it is */
  streams?: StreamSupport;
}

/** Where a Slack event came from: the workspace (team) and, for an org-wide install, its enterprise. */
export interface SlackOrigin {
  workspace?: string;
  enterprise?: string;
}

/** Bolt's context names the workspace and enterprise of every event, action and command. */
export const originOf = (context: { teamId?: string; enterpriseId?: string }): SlackOrigin => ({
  workspace: context.teamId || undefined,
  enterprise: context.enterpriseId || undefined,
});

/** A thread's id: its workspace, channel and thread ts (thread memory is kept under it, so workspaces never share one). */
export const slackThreadId = (origin: SlackOrigin, channel: string, threadTs: string) =>
  origin.workspace ? `slack:${origin.workspace}:${channel}:${threadTs}` : `slack:${channel}:${threadTs}`;

export interface ThreadTarget extends SlackOrigin {
  client: WebClient;
  channel: string;
  threadTs: string;
  userId?: string;
  /** a thread of the agent view: the worker titles it with the resolved question */
  agentView?: boolean;
}

/** What a placeholder says while its question waits. */
export function waitingText(ahead: number): string {
  const inLine = inLineText(ahead);
  return inLine ? `:hourglass_flowing_sand: ${inLine}` : WORKING;
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
  const { client, channel, threadTs, userId, workspace, enterprise, agentView } = target;
  const reply: SlackReplyTarget = {
    platform: 'slack',
    channel,
    threadTs,
    userId,
    workspace,
    enterprise,
    ...(agentView ? { agentView } : {}),
  };
  const queued = await deps.queue.enqueue({ key, message, action, reply });
  if (!queued) {
    deps.logger.debug(`slack: ${key} was delivered before; not answered twice`);
    return false;
  }
  // an agent-view thread waits in its status line (listeners/agent-view.ts): a message would clear it
  if (agentView) return true;
  void (async () => {
    const ahead = await deps.deliveries.aheadOf(key);
    const row = await deps.deliveries.get(key);
    // a fast worker may have posted (and even filled) a placeholder already
    if (row?.placeholder) return;
    const opening = {
      support: deps.streams ?? new StreamSupport(),
      place: { channel, threadTs, userId, workspace },
      title: inLineText(ahead) ?? 'Working on it',
    };
    const placing = { client, deliveries: deps.deliveries, logger: deps.logger };
    await placeholderFor(placing, key, channel, threadTs, waitingText(ahead), undefined, opening);
  })().catch((error) =>
    deps.logger.warn(`slack: the placeholder of ${key} could not be posted (${slackErrorCode(error)}); the worker posts one`),
  );
  return true;
}

/** The question of a mention: the bot's own mention at the start dropped, then Slack's encoding read (see slack-text.ts). */
export const stripMention = (text: string) => fromSlackText(text.replace(/^\s*(<@[A-Z0-9]+(\|[^>]*)?>\s*)+/, ''));

export function inbound(
  origin: SlackOrigin,
  channel: string,
  threadTs: string,
  userId: string | undefined,
  text: string,
  kind: InboundMessage['kind'] = 'question',
): InboundMessage {
  return {
    platform: 'slack',
    threadId: slackThreadId(origin, channel, threadTs),
    channel,
    workspace: origin.workspace,
    userId,
    text,
    kind,
  };
}
