// Answering in a Slack thread: a placeholder that shows which step is running,
// replaced by the answer (chat.update), the rest of a long answer as further
// replies, and the chart PNG uploaded into the same thread (files.uploadV2).
// Whatever fails, the thread gets a sentence, never silence.
import type { WebClient } from '@slack/web-api';
import type { DataDesk, InboundMessage } from '../../agents/desk.js';
import type { Answer } from '../../core/answer.js';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import { renderChart } from '../../charts/render.js';
import { renderAnswerMessages } from './render-blocks.js';
import { fromSlackText } from './slack-text.js';

export interface SlackDeps {
  desk: DataDesk;
  logger: Logger;
  quickchartUrl?: string;
}

export const slackThreadId = (channel: string, threadTs: string) => `slack:${channel}:${threadTs}`;

export interface ThreadTarget {
  client: WebClient;
  channel: string;
  threadTs: string;
  userId?: string;
}

/** Runs `produce` with a live placeholder and posts its Answer in the thread. */
export async function answerInThread(
  deps: SlackDeps,
  target: ThreadTarget,
  produce: (progress: (step: string) => void) => Promise<Answer>,
): Promise<void> {
  const { client, channel, threadTs } = target;
  const placeholder = await client.chat.postMessage({ channel, thread_ts: threadTs, text: ':hourglass_flowing_sand: Working on it…' });
  const ts = placeholder.ts!;
  let lastUpdate = 0;
  let updating: Promise<unknown> = Promise.resolve();
  const progress = (step: string) => {
    // a few progress edits, not one per step: Slack rate-limits chat.update
    if (Date.now() - lastUpdate < 1_000) return;
    lastUpdate = Date.now();
    updating = client.chat.update({ channel, ts, text: `:hourglass_flowing_sand: ${step}…` }).catch(() => undefined);
  };
  let answer: Answer;
  try {
    answer = await produce(progress);
  } catch (error) {
    deps.logger.error(`slack: answering failed: ${describeError(error)}`);
    await updating;
    await client.chat.update({ channel, ts, text: ':warning: Something went wrong while answering; it has been logged. Please try again.' });
    return;
  }
  await updating;
  const [first, ...rest] = renderAnswerMessages(answer);
  try {
    await client.chat.update({ channel, ts, text: first.text, blocks: first.blocks });
  } catch (error) {
    // never silence: the placeholder would say "Reading the schema…" for good; post the answer as a new reply
    deps.logger.warn(`slack: chat.update of the answer failed (${slackErrorCode(error)}); posting it as a new reply`);
    await client.chat.postMessage({ channel, thread_ts: threadTs, text: first.text, blocks: first.blocks });
  }
  for (const m of rest) await client.chat.postMessage({ channel, thread_ts: threadTs, text: m.text, blocks: m.blocks });
  if (answer.kind === 'result' && answer.chart) {
    try {
      const png = await renderChart(answer.chart, deps.quickchartUrl);
      await client.files.uploadV2({ channel_id: channel, thread_ts: threadTs, file: png, filename: 'chart.png', title: answer.chart.title });
    } catch (error) {
      deps.logger.warn(`slack: chart upload failed: ${describeError(error)}`);
      await client.chat.postMessage({ channel, thread_ts: threadTs, text: ':warning: The chart could not be attached this time; the numbers above are complete.' });
    }
  }
}

/** Slack's error code (msg_too_long, invalid_blocks, …) when the Web API said one. */
function slackErrorCode(error: unknown): string {
  return (error as { data?: { error?: string } }).data?.error ?? describeError(error);
}

/** The question of a message, without the bot mention. */
/** The question of a mention: the bot's own mention at the start dropped, then Slack's encoding read (see slack-text.ts). */
export const stripMention = (text: string) => fromSlackText(text.replace(/^\s*(<@[A-Z0-9]+(\|[^>]*)?>\s*)+/, ''));

export function inbound(channel: string, threadTs: string, userId: string | undefined, text: string, kind: InboundMessage['kind'] = 'question'): InboundMessage {
  return { platform: 'slack', threadId: slackThreadId(channel, threadTs), channel, userId, text, kind };
}
