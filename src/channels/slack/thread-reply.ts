// The receiver's side of a Slack question: the receive sequence (inbox.ts)
// with a placeholder in the thread that says where the question is in line. The answering runs in a worker
// (slack-outbox.ts), which replaces that placeholder with the answer.
import type { WebClient } from '@slack/web-api';
import type { InboundMessage } from '../../agents/desk.js';
import type { Logger } from '../../core/logger.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { Deliveries } from '../../jobs/deliveries.js';
import type { AnswerQueue } from '../../jobs/queue.js';
import { receive } from '../inbox.js';
import type { SlackReplyTarget } from './slack-outbox.js';
import { placeholderFor, WORKING } from './placeholder.js';
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

/** What a placeholder says while its question waits (inbox.ts says its place in line). */
export function waitingText(inLine: string | undefined): string {
  return inLine ? `:hourglass_flowing_sand: ${inLine}…` : WORKING;
}

/**
 * Queues the question for a worker through the one receive sequence (inbox.ts); false for a delivery seen before
 * (nothing is queued or posted). The placeholder is posted after this returns (in the background), a stream
 * where Slack can; an agent-view thread waits in its status line instead (listeners/agent-view.ts).
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
  const show = async (inLine: string | undefined) => {
    const opening = {
      support: deps.streams ?? new StreamSupport(),
      place: { channel, threadTs, userId, workspace },
      title: inLine ?? 'Working on it',
    };
    const placing = { client, deliveries: deps.deliveries, logger: deps.logger };
    await placeholderFor(placing, key, channel, threadTs, waitingText(inLine), undefined, opening);
  };
  return receive(deps, { key, message, action, reply }, agentView ? undefined : show, { background: true });
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
