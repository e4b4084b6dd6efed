// The worker's side of a Slack answer: the placeholder in the thread shows the
// step being run and is then replaced by the answer (chat.update); the rest of
// a long answer follows as replies and the chart PNG is uploaded into the
// thread (files.uploadV2). Each of those is a recorded step, so a retried job
// (after a crash or a failed call) finishes the reply instead of repeating it.
// Whatever fails, the thread gets a sentence, never silence.
import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import { renderChart } from '../../charts/render.js';
import type { Deliveries, DeliveryRow } from '../../jobs/deliveries.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { ReplySink, SinkFactory } from '../../jobs/answer-worker.js';
import { renderAnswerMessages } from './render-blocks.js';
import { exportSourceOf } from '../../export/csv-export.js';

export const WORKING = ':hourglass_flowing_sand: Working on it…';

export interface SlackSinkDeps {
  client: WebClient;
  deliveries: Deliveries;
  logger: Logger;
  quickchartUrl?: string;
  /** answers with a table get a "Download CSV" button when on */
  exports?: boolean;
}

/** Slack's error code (msg_too_long, invalid_blocks, …) when the Web API said one. */
export function slackErrorCode(error: unknown): string {
  return (error as { data?: { error?: string } }).data?.error ?? describeError(error);
}

/** The metadata every placeholder carries: which delivery it belongs to, so a worker can find it again. */
export const PLACEHOLDER_EVENT = 'datadesk_placeholder';

/**
 * The placeholder message of a delivery: the one recorded, or a new one. When
 * the receiver and a worker both post one at once, the first recorded wins and
 * the other is deleted.
 */
export async function placeholderFor(deps: SlackSinkDeps, key: string, channel: string, threadTs: string, text: string, recorded?: string): Promise<string> {
  if (recorded) return recorded;
  const posted = await deps.client.chat.postMessage({ channel, thread_ts: threadTs, text, metadata: { event_type: PLACEHOLDER_EVENT, event_payload: { key } } });
  const winner = (await deps.deliveries.claimPlaceholder(key, { ts: posted.ts! }))?.ts ?? posted.ts!;
  if (winner !== posted.ts) await deps.client.chat.delete({ channel, ts: posted.ts! }).catch(() => undefined);
  return winner;
}

/**
 * A placeholder posted for this delivery but never recorded: the process that
 * posted it died in between. Found in the thread by its metadata (needs the
 * history scopes), so the answer replaces it instead of leaving it to say
 * "Working on it…" for good.
 */
async function orphanedPlaceholder(deps: SlackSinkDeps, key: string, channel: string, threadTs: string): Promise<string | undefined> {
  try {
    const replies = await deps.client.conversations.replies({ channel, ts: threadTs, include_all_metadata: true, limit: 200 });
    const mine = replies.messages?.find((m) => m.metadata?.event_type === PLACEHOLDER_EVENT && (m.metadata.event_payload as { key?: string } | undefined)?.key === key);
    if (!mine?.ts) return undefined;
    return (await deps.deliveries.claimPlaceholder(key, { ts: mine.ts }))?.ts;
  } catch (error) {
    deps.logger.debug(`slack: could not look for an earlier placeholder of ${key} (${slackErrorCode(error)})`);
    return undefined;
  }
}

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

export function slackReplySink(deps: SlackSinkDeps): SinkFactory {
  return async (job: AnswerJob, delivery: DeliveryRow): Promise<ReplySink> => {
    if (job.reply.platform !== 'slack') throw new Error(`a ${job.reply.platform} job reached the Slack sink`);
    const { channel, threadTs } = job.reply;
    const { client, logger } = deps;
    const recorded = (await deps.deliveries.placeholderSoon(delivery))?.ts ?? (await orphanedPlaceholder(deps, job.key, channel, threadTs));
    const ts = await placeholderFor(deps, job.key, channel, threadTs, WORKING, recorded);
    // a question that waited in line said so; now it is being answered
    if (recorded && !delivery.steps.length) await client.chat.update({ channel, ts, text: WORKING }).catch(() => undefined);
    let lastUpdate = 0;
    let updating: Promise<unknown> = Promise.resolve();
    const post = (text: string, blocks?: unknown[]) => client.chat.postMessage({ channel, thread_ts: threadTs, text, blocks: blocks as never });

    return {
      progress: (step) => {
        // a few progress edits, not one per step: Slack rate-limits chat.update
        if (Date.now() - lastUpdate < 1_000) return;
        lastUpdate = Date.now();
        updating = client.chat.update({ channel, ts, text: `:hourglass_flowing_sand: ${step}…` }).catch(() => undefined);
      },
      deliver: async (answer, steps) => {
        await updating;
        const [first, ...rest] = renderAnswerMessages(answer, { exportKey: deps.exports && exportSourceOf(answer) ? job.key : undefined });
        if (!steps.done('answer')) {
          try {
            await client.chat.update({ channel, ts, text: first.text, blocks: first.blocks });
          } catch (error) {
            // never silence: the placeholder would say "Reading the schema…" for good; post the answer as a new reply
            logger.warn(`slack: chat.update of the answer failed (${slackErrorCode(error)}); posting it as a new reply`);
            await post(first.text, first.blocks);
          }
          await steps.record('answer');
        }
        for (const [i, m] of rest.entries()) {
          if (steps.done(`more:${i + 1}`)) continue;
          await post(m.text, m.blocks);
          await steps.record(`more:${i + 1}`);
        }
        if (answer.kind === 'result' && answer.chart && !steps.done('chart')) {
          // the file is named for its delivery, and its upload recorded as begun before it starts: a worker that died
          // between the upload and the record left the file in the thread, where the next attempt finds it
          const filename = chartFileName(job.key);
          if (steps.done('chart:started') && (await fileInThread(client, channel, threadTs, filename))) {
            logger.debug(`slack: the chart of ${job.key} is in the thread already; not uploaded again`);
          } else {
            await steps.record('chart:started');
            try {
              const png = await renderChart(answer.chart, deps.quickchartUrl);
              await client.files.uploadV2({ channel_id: channel, thread_ts: threadTs, file: png, filename, title: answer.chart.title });
            } catch (error) {
              logger.warn(`slack: chart upload failed: ${describeError(error)}`);
              await post(':warning: The chart could not be attached this time; the numbers above are complete.');
            }
          }
          await steps.record('chart');
        }
      },
      giveUp: async (message) => {
        await client.chat.update({ channel, ts, text: `:warning: ${message}` }).catch(() => post(`:warning: ${message}`));
      },
    };
  };
}
