// Everything the bot sends to Slack (the platform seam's Outbox, see
// core/platform.ts), with the client of the workspace it goes to.
//
// Replies: the placeholder in the thread shows the step being run and is then
// replaced by the answer (chat.update); the rest of a long answer follows as
// replies and the chart PNG is uploaded into the thread (files.uploadV2). Each
// of those is a recorded step, so a retried job (after a crash or a failed
// call) finishes the reply instead of repeating it. Whatever fails, the thread
// gets a sentence, never silence.
//
// A new post in a channel (a digest) is the same reply without a placeholder:
// its first message is the post, carrying the delivery's key in its metadata,
// so that a post whose reply was lost (a crash, a timeout) is found again in
// the channel's history (placeholder.ts) instead of being posted twice; the
// rest and the chart go in its thread. A channel that is gone (bot removed,
// archived, app uninstalled) fails as ChannelGoneError, which is not retried.
import { bestEffort } from '../../core/best-effort.js';
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import { ChannelGoneError, type PostTarget, type ReplySink } from '../../core/platform.js';
import { renderChart } from '../../charts/render.js';
import type { Deliveries, DeliveryRow } from '../../jobs/deliveries.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { JobOutbox } from '../../jobs/answer-worker.js';
import {
  chartInBlocks,
  cutText,
  HEADLINE_BLOCK,
  renderAnswerMessages,
  SECTION_LIMIT,
  SOURCES_BLOCK,
  type RenderOptions,
} from './render-blocks.js';
import type { SlackMessage } from './block-types.js';
import type { Answer } from '../../core/answer.js';
import { exportSourceOf } from '../../export/csv-export.js';
import { WorkspaceNotInstalledError, type SlackClients } from './slack-clients.js';
import { threadTitle } from './slack-text.js';
import { escapeMarkdown, sourceTasks, StreamSupport, taskChunk, WAIT_TASK, type StreamTask } from './answer-stream.js';
import {
  metadataOf,
  PLACEHOLDER_EVENT,
  PlaceholderStream,
  placeholderOfReply,
  postInHistory,
  REPLY_EVENT,
  type Placeholder,
} from './placeholder.js';
import { failure, slackErrorCode } from './slack-error.js';

export interface SlackOutboxDeps {
  clients: SlackClients;
  deliveries: Deliveries;
  logger: Logger;
  quickchartUrl?: string;
  /** answers with a table get a "Download CSV" button when on */
  exports?: boolean;
  /** answers get 👍/👎 feedback_buttons when on (feedback is kept) */
  feedback?: boolean;
  /** whether answers stream (chat.startStream) where Slack can; unset: they do */
  streams?: StreamSupport;
}

/** A Slack answer job's reply target: the thread, and the workspace (and enterprise) whose token reaches it. */
const slackReplyTarget = z.object({
  platform: z.literal('slack'),
  channel: z.string(),
  /** the thread; absent for a new post in the channel (a digest), whose first message becomes the thread */
  threadTs: z.string().optional(),
  /** a new post in the channel (core/platform.ts NewPost) */
  post: z.object({ since: z.string() }).optional(),
  userId: z.string().optional(),
  workspace: z.string().optional(),
  enterprise: z.string().optional(),
  /** a thread of the agent view (listeners/agent-view.ts): titled with the resolved question once answered */
  agentView: z.boolean().optional(),
});
export type SlackReplyTarget = z.infer<typeof slackReplyTarget>;

/** A delivery's chart file name: the same at every attempt, so a retry can find an upload a dead worker finished. */
export const chartFileName = (key: string) => `chart-${createHash('sha256').update(key).digest('hex').slice(0, 12)}.png`;

/** Whether the thread has the bot's file of this name (a failed lookup says no: the chart is then uploaded). */
async function fileInThread(client: WebClient, channel: string, threadTs: string, name: string): Promise<boolean> {
  try {
    const replies = await client.conversations.replies({ channel, ts: threadTs, limit: 200 });
    return Boolean(replies.messages?.some((m) => (m.files ?? []).some((f) => f.name === name)));
  } catch {
    return false;
  }
}

export function slackOutbox(deps: SlackOutboxDeps): JobOutbox {
  return {
    replies: finalWhenGone(slackReplies(deps)),
    newPost: async (to, post) => ({
      platform: 'slack',
      channel: to.channel,
      post,
      ...(to.workspace ? { workspace: to.workspace } : {}),
      ...(to.enterprise_id ? { enterprise: to.enterprise_id } : {}),
    }),
  };
}

/**
 * A reply into a channel this workspace's token cannot reach (channel_not_found, not_in_channel,
 * team_access_not_granted: an event naming another workspace's channel; an archived channel; a workspace that
 * removed the app) fails as ChannelGoneError, which the worker does not retry: asking Slack again gets the same.
 */
function finalWhenGone(replies: JobOutbox['replies']): JobOutbox['replies'] {
  return async (job, delivery) => {
    const to = { channel: slackReplyTarget.parse(job.reply).channel };
    const gone = <T>(call: () => Promise<T>) =>
      slackCall(to, call).catch((error: unknown) => {
        throw error instanceof WorkspaceNotInstalledError ? new ChannelGoneError(error.message) : error;
      });
    const sink = await gone(() => replies(job, delivery));
    return {
      progress: (step) => sink.progress(step),
      deliver: (answer, steps) => gone(() => sink.deliver(answer, steps)),
      giveUp: (message) => gone(() => sink.giveUp(message)),
    };
  };
}

function slackReplies(deps: SlackOutboxDeps): JobOutbox['replies'] {
  const streams = deps.streams ?? new StreamSupport();
  return async (job: AnswerJob, delivery: DeliveryRow): Promise<ReplySink> => {
    const target = slackReplyTarget.parse(job.reply);
    const { channel, userId, workspace, enterprise, agentView, post: newPost } = target;
    const { logger } = deps;
    const client = await deps.clients.forWorkspace(workspace, enterprise);
    const placing = { client, deliveries: deps.deliveries, logger };
    const metadata = metadataOf(PLACEHOLDER_EVENT, job.key);
    // a new post has no placeholder: its first message is the answer, found again (recorded, or in the channel's
    // history when an earlier attempt may have made it) rather than posted twice
    const placeholder = newPost
      ? ((delivery.placeholder as Placeholder | null) ??
        (delivery.attempts > 1 ? await postInHistory(placing, job.key, channel, newPost.since) : undefined))
      : await placeholderOfReply(
          placing,
          job.key,
          delivery,
          { channel, threadTs: target.threadTs!, userId, workspace },
          streams,
          agentView,
        );
    const foundInHistory = Boolean(newPost && placeholder && !delivery.placeholder);
    let ts = placeholder?.ts;
    /** where the rest of the answer goes: the question's thread, or the new post's */
    let threadTs = target.threadTs ?? ts;
    // A stream is continued by the attempt that finds it open and its headline not begun; an earlier attempt that
    // began the headline may have sent part of it, so this one closes the stream and replaces it (chat.update).
    const stream = await PlaceholderStream.resume(client, channel, placeholder, delivery.steps.includes('headline:started'));
    const streaming = () => stream?.isOpen ?? false;
    /** the stream's current line: the wait, until the first step */
    let task: StreamTask = { id: WAIT_TASK, title: 'Question received', status: 'in_progress' };
    let taskNo = 0;

    /** The answer's first message: the placeholder (or an earlier attempt's answer) updated, else posted and recorded. */
    const show = async (m: { text: string; blocks: unknown[] }) => {
      if (ts) return client.chat.update({ channel, ts, text: m.text, blocks: m.blocks as never, metadata });
      const posted = await client.chat.postMessage({ channel, thread_ts: threadTs, text: m.text, blocks: m.blocks as never, metadata });
      ts = (await deps.deliveries.claimPlaceholder(job.key, { ts: posted.ts! }))?.ts ?? posted.ts!;
      threadTs ??= ts;
      return posted;
    };
    /**
     * The answer as the end of the stream: the headline streamed as markdown, the rest as its final blocks, with
     * the placeholder's metadata. False when the stream could not take it (closed, refused): show() replaces it.
     */
    const finishStream = async (
      answer: Answer,
      stream: PlaceholderStream,
      first: SlackMessage,
      classicAgain: () => Promise<SlackMessage>,
      steps: { record(step: string): Promise<void> },
    ): Promise<boolean> => {
      await steps.record('headline:started');
      try {
        const headline =
          answer.kind === 'result'
            ? [{ type: 'markdown_text', text: `**${escapeMarkdown(cutText(answer.headline, SECTION_LIMIT))}**` }]
            : [];
        // the answer's sources as the timeline's last tasks, in place of the blocks' sources line
        const sources = answer.kind === 'result' && answer.sources ? sourceTasks(answer.sources) : [];
        await stream.append([taskChunk({ ...task, status: 'complete' }), ...sources, ...headline]);
        const stop = (m: SlackMessage) =>
          stream.end(
            m.blocks.filter((b) => b.block_id !== HEADLINE_BLOCK && (!sources.length || b.block_id !== SOURCES_BLOCK)),
            metadata,
          );
        await stop(first).catch(async (error) => {
          if (slackErrorCode(error) !== 'invalid_blocks') throw error;
          logger.warn('slack: the native data blocks were refused (invalid_blocks); ending the stream with classic blocks');
          await stop(await classicAgain());
        });
        return true;
      } catch (error) {
        logger.info(`slack: the stream of ${job.key} could not take the answer (${failure(error)}); replacing it with chat.update`);
        // closed first (if it is still open), so that the update is of a finished message
        await stream.close();
        return false;
      }
    };
    let lastUpdate = 0;
    let updating: Promise<unknown> = Promise.resolve();
    /** task updates not yet appended to the stream */
    const pending: unknown[] = [];
    const post = (text: string, blocks?: unknown[]) =>
      client.chat.postMessage({ channel, thread_ts: threadTs, text, blocks: blocks as never, metadata: metadataOf(REPLY_EVENT, job.key) });

    return {
      progress: (step) => {
        if (newPost) return; // a new post shows nothing before its answer
        if (stream && streaming()) {
          // each step a task of the stream's timeline: the last one done, this one running. One append at a time:
          // steps that come while one is in flight go together in the next (Slack rate-limits appendStream too)
          pending.push(taskChunk({ ...task, status: 'complete' }));
          task = { id: `step-${++taskNo}`, title: step, status: 'in_progress' };
          pending.push(taskChunk(task));
          if (pending.length === 2)
            updating = bestEffort(
              updating.then(() => (streaming() && pending.length ? stream.append(pending.splice(0)) : undefined)),
              'appending steps to a Slack stream',
            );
          return;
        }
        // a few progress edits, not one per step: Slack rate-limits chat.update
        if (Date.now() - lastUpdate < 1_000) return;
        lastUpdate = Date.now();
        updating = bestEffort(
          agentView && !ts
            ? client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs!, status: `is at: ${step.toLowerCase()}…` })
            : client.chat.update({ channel, ts: ts!, text: `:hourglass_flowing_sand: ${step}…` }),
          'showing a progress step in Slack',
        );
      },
      deliver: async (answer, steps) => {
        await updating;
        if (foundInHistory) await steps.record('found');
        const exportKey = deps.exports && exportSourceOf(answer) ? job.key : undefined;
        // the native data blocks, unless this delivery already fell back to the classic ones
        let options: RenderOptions = { exportKey, classic: steps.done('classic'), feedback: deps.feedback };
        let [first, ...rest] = renderAnswerMessages(answer, options);
        const classicAgain = async () => {
          await steps.record('classic');
          options = { exportKey, classic: true };
          [first, ...rest] = renderAnswerMessages(answer, options);
          return first;
        };
        const streamed =
          !steps.done('answer') && stream !== undefined && streaming() && (await finishStream(answer, stream, first, classicAgain, steps));
        if (!steps.done('answer') && !streamed) {
          const update = () => show(first);
          try {
            await update().catch(async (error) => {
              if (slackErrorCode(error) !== 'invalid_blocks' || options.classic) throw error;
              // a Slack without data_table / data_visualization (an older or restricted workspace): the classic blocks
              logger.warn('slack: the native data blocks were refused (invalid_blocks); sending the answer with classic blocks');
              await classicAgain();
              await update();
            });
          } catch (error) {
            // a new post that failed may yet have been made (a lost reply): the next attempt looks for it first
            if (newPost) throw error;
            // never silence: the placeholder would say "Reading the schema…" for good; post the answer as a new reply
            logger.warn(`slack: chat.update of the answer failed (${failure(error)}); posting it as a new reply`);
            await post(first.text, first.blocks);
          }
        }
        if (!steps.done('answer')) await steps.record('answer');
        // an agent-view thread is titled with what was answered: the resolved question, not the fragment typed
        const resolved = answer.kind === 'result' ? answer.resolved?.question : undefined;
        if (agentView && resolved && !steps.done('title')) {
          await client.assistant.threads
            .setTitle({ channel_id: channel, thread_ts: threadTs!, title: threadTitle(resolved) })
            .catch((error) => logger.debug(`slack: the thread title of ${job.key} was not set (${failure(error)})`));
          await steps.record('title');
        }
        for (const [i, m] of rest.entries()) {
          if (steps.done(`more:${i + 1}`)) continue;
          await post(m.text, m.blocks);
          await steps.record(`more:${i + 1}`);
        }
        // a chart drawn by Slack (data_visualization) is in the blocks; any other is uploaded as a PNG
        if (answer.kind === 'result' && answer.chart && !chartInBlocks(answer, options) && !steps.done('chart')) {
          // the file is named for its delivery, and its upload recorded as begun before it starts: a worker that died
          // between the upload and the record left the file in the thread, where the next attempt finds it
          const filename = chartFileName(job.key);
          if (steps.done('chart:started') && (await fileInThread(client, channel, threadTs!, filename))) {
            logger.debug(`slack: the chart of ${job.key} is in the thread already; not uploaded again`);
          } else {
            await steps.record('chart:started');
            try {
              const png = await renderChart(answer.chart, deps.quickchartUrl);
              await client.files.uploadV2({ channel_id: channel, thread_ts: threadTs!, file: png, filename, title: answer.chart.title });
            } catch (error) {
              logger.warn(`slack: chart upload failed: ${describeError(error)}`);
              await post(':warning: The chart could not be attached this time; the numbers above are complete.');
            }
          }
          await steps.record('chart');
        }
      },
      giveUp: async (message) => {
        if (!ts) return void (await post(`:warning: ${message}`));
        await stream?.close();
        await client.chat.update({ channel, ts, text: `:warning: ${message}` }).catch(() => post(`:warning: ${message}`));
      },
    };
  };
}

const SLACK_GONE = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'account_inactive',
  'team_access_not_granted',
  'token_revoked',
]);
async function slackCall<T>(to: Pick<PostTarget, 'channel'>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code = slackErrorCode(error);
    if (code && SLACK_GONE.has(code)) throw new ChannelGoneError(`Slack says ${code} for channel ${to.channel}`);
    throw error;
  }
}
