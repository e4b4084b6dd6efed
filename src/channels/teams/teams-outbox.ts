// Everything the bot sends to Teams (the platform seam's Outbox, see
// core/platform.ts).
//
// Replies: the receiver answered Teams' HTTP call
// at once; the worker reaches the conversation proactively through its stored
// reference: the "on it" message shows the step being run and is then replaced
// by the answer card (updateActivity), or the card is sent as a new message
// when Teams refuses the update. A retried job replaces the same message.
// The Bot Framework Emulator cannot update messages: there the answer always
// comes as a new message under "on it".
//
// A new post (a digest) goes through the channel's stored conversation
// reference (proactive message) with the chart inside the card; a
// conversation Teams says is gone (403, 404) fails as ChannelGoneError.
import { bestEffort } from '../../core/best-effort.js';
import { ActivityTypes, CardFactory, type Activity, type CloudAdapter, type ConversationReference, type TurnContext } from 'botbuilder';
import type pg from 'pg';
import { z } from 'zod';
import type { Answer, ChartSpec } from '../../core/answer.js';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import { ChannelGoneError, UNCONFIRMED_POST, type ReplySink } from '../../core/platform.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { Deliveries, DeliveryRow } from '../../jobs/deliveries.js';
import type { JobOutbox } from '../../jobs/answer-worker.js';
import { exportSourceOf } from '../../export/csv-export.js';
import { type CardExtras, answerCard, answerSummary, chartForCard } from './render-card.js';
import { loadConversationReference } from './conversation-store.js';
import { answerMessageEntity } from './citation.js';
import { firstSequence, informative, streamInfo, streamsIn } from './teams-stream.js';

export const ON_IT = 'On it…';

/** A Teams answer job's reply target: the conversation, reached proactively through its stored reference. */
const teamsReplyTarget = z.object({
  platform: z.literal('teams'),
  conversationId: z.string(),
  reference: z.record(z.string(), z.unknown()),
  /** the address Teams reached this bot at (scheme and host): where a card's chart and CSV links point without PUBLIC_BASE_URL */
  reachedAt: z.string().url().optional(),
  /** a new post in the conversation (a digest): no "on it" before it (core/platform.ts NewPost) */
  post: z.object({ since: z.string() }).optional(),
});
export type TeamsReplyTarget = z.infer<typeof teamsReplyTarget>;

export interface TeamsOutboxDeps {
  /** where conversation references are kept (digest posts reach their channel through them) */
  pool: pg.Pool;
  adapter: CloudAdapter;
  /** the bot's Microsoft app id ('' for the local Emulator convention) */
  appId: string;
  deliveries: Deliveries;
  /** a URL under which the bot serves this PNG (ChartStore + GET /charts) */
  /** a URL under which this PNG is served; `base`: the address Teams reached, when known */
  chartLink: (png: Buffer, base?: string) => string;
  /** a URL under which this chart is served drawn for a card when first fetched (ChartStore.putLater); absent: drawn now */
  chartLater?: (spec: ChartSpec, base?: string) => string;
  /** PUBLIC_BASE_URL is set: a chart link reaches every client, so no chart is drawn at answer time */
  publicBase?: boolean;
  logger: Logger;
  quickchartUrl?: string;
  /** the download URL for an export token (PUBLIC_BASE_URL + /exports/<token>.csv); no CSV link without it */
  exportLink?: (token: string, base?: string) => string;
}

/**
 * The "on it" message of a delivery: the one recorded, or a new one. When the
 * receiver and a worker both send one at once, the first recorded wins and the
 * other is deleted.
 */
export async function teamsPlaceholder(
  context: TurnContext,
  deliveries: Deliveries,
  key: string,
  text: string,
  recorded?: string,
): Promise<string | undefined> {
  if (recorded) return recorded;
  const sent = await context.sendActivity(text);
  if (!sent?.id) return undefined;
  const winner = (await deliveries.claimPlaceholder(key, { id: sent.id }))?.id ?? sent.id;
  if (winner !== sent.id) await bestEffort(context.deleteActivity(sent.id), 'deleting a duplicate Teams placeholder');
  return winner;
}

/**
 * What marks a bot's answer in Teams: the feedback loop (Teams draws 👍/👎 under it and sends the verdict as a
 * message/submitAction invoke, see handlers/feedback-loop.ts), the "AI generated" label and, for an answer SQL
 * produced, its citation (citation.ts; entity-fields.ts lets the entity's fields through botbuilder's serializer).
 * A clarifying question is no AI-generated answer: it has none of them.
 */
const answerMarks = (answer: Answer) => ({ channelData: { feedbackLoopEnabled: true }, entities: [answerMessageEntity(answer)] });

/** The HTTP status the connector answered a failed call with (a RestError's statusCode). */
const httpStatusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/**
 * Runs `logic` in the conversation (a proactive turn) and throws what it threw. The adapter would hand an error
 * escaping the logic to its onTurnError, which posts "Sorry, something went wrong" into the conversation and
 * swallows it: a failed progress edit would say so in the channel, and a digest post Teams refused (the channel
 * gone) would count as posted.
 */
async function proactively(
  adapter: CloudAdapter,
  appId: string,
  reference: Partial<ConversationReference>,
  logic: (context: TurnContext) => Promise<void>,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  await adapter.continueConversationAsync(appId, reference, async (context) => {
    try {
      await logic(context);
    } catch (error) {
      failure = { error };
    }
  });
  if (failure) throw failure.error;
}

export function teamsOutbox(deps: TeamsOutboxDeps): JobOutbox {
  return {
    replies: teamsReplies(deps),
    newPost: async (to, post) => {
      const reference = await loadConversationReference(deps.pool, to.channel);
      if (!reference) throw new ChannelGoneError(`no stored Teams conversation ${to.channel}`);
      return { platform: 'teams', conversationId: to.channel, reference: reference as Record<string, unknown>, post };
    },
  };
}

/** A new post Teams refused because the bot cannot reach the conversation (removed: 403; deleted: 404) is final. */
async function finalWhenGone(conversationId: string, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (error) {
    const status = httpStatusOf(error);
    if (status === 403 || status === 404) throw new ChannelGoneError(`Teams answered ${status} for conversation ${conversationId}`);
    throw error;
  }
}

function teamsReplies(deps: TeamsOutboxDeps): JobOutbox['replies'] {
  return async (job: AnswerJob, delivery: DeliveryRow): Promise<ReplySink> => {
    const target = teamsReplyTarget.parse(job.reply);
    const reference = target.reference as Partial<ConversationReference>;
    const inConversation = (logic: (context: TurnContext) => Promise<void>) => proactively(deps.adapter, deps.appId, reference, logic);
    const canUpdate = reference.channelId !== 'emulator';
    const placeholder = canUpdate && !target.post ? await deps.deliveries.placeholderSoon(delivery) : undefined;
    let id = placeholder?.id;
    // a personal chat's answer is a stream (teams-stream.ts): its id is the final message's; continued unless a
    // final was begun (then the message of that id is updated, or a new one sent when the final never arrived)
    const streamed = placeholder?.stream === '1';
    let streamOpen = streamed && streamsIn(reference) && !delivery.steps.includes('final:started');
    let sequence = firstSequence(delivery.attempts);
    let last = 0;
    let updating: Promise<unknown> = Promise.resolve();
    /** sends an activity of the stream; a stream Teams no longer takes (403: ended, past its two minutes) is closed */
    const toStream = (context: TurnContext, activity: Partial<Activity>) =>
      context.sendActivity(activity).catch((error) => {
        if (httpStatusOf(error) === 403) streamOpen = false;
        throw error;
      });
    return {
      progress: (step) => {
        if (target.post) return; // a new post shows nothing before its answer
        // Teams asks for at most about one streaming request a second, and "on it" edits are rate-limited too
        if (!id || Date.now() - last < (streamOpen ? 1_500 : 2_000)) return;
        if (streamed && !streamOpen) return;
        last = Date.now();
        updating = bestEffort(
          inConversation(async (context) => {
            if (streamOpen) await toStream(context, informative(`${step}…`, id, sequence++));
            else await context.updateActivity({ id, type: ActivityTypes.Message, text: `${step}…` });
          }),
          'showing a progress step in Teams',
        );
      },
      deliver: async (answer, steps) => {
        await updating;
        if (steps.done('answer')) return;
        // Teams' own 👍/👎 (the feedback loop) where Teams draws it; the Emulator has none, so there the card has buttons.
        // The card links its rows as CSV when there is a table and a public address.
        const loop = reference.channelId === 'msteams';
        const marked = loop && answer.kind !== 'clarify';
        const extras: CardExtras = loop ? { universalActions: true, citation: marked } : { feedbackKey: job.key };
        if (deps.exportLink && exportSourceOf(answer))
          extras.exportUrl = deps.exportLink(await deps.deliveries.exportToken(job.key), target.reachedAt);
        let chart;
        try {
          const { chartLater } = deps;
          const links = {
            link: (png: Buffer) => deps.chartLink(png, target.reachedAt),
            later: chartLater && ((spec: ChartSpec) => chartLater(spec, target.reachedAt)),
            publicBase: deps.publicBase,
          };
          chart = await chartForCard(answer, links, deps.quickchartUrl, extras);
        } catch (error) {
          deps.logger.warn(`teams: chart: ${describeError(error)}`);
        }
        const reply = {
          type: ActivityTypes.Message,
          text: answerSummary(answer, marked),
          attachments: [CardFactory.adaptiveCard(answerCard(answer, chart, extras))],
          ...(marked ? answerMarks(answer) : {}),
        };
        if (target.post) {
          // Teams keeps no history to look in: a post an earlier attempt may have made is not made again (a
          // duplicate in a channel is worse than a missing digest), and the run says so
          if (steps.done('post:started')) return void (await steps.record(UNCONFIRMED_POST));
          await steps.record('post:started');
          await finalWhenGone(target.conversationId, () => inConversation(async (context) => void (await context.sendActivity(reply))));
          return void (await steps.record('answer'));
        }
        await inConversation(async (context) => {
          if (streamOpen && id) {
            await steps.record('final:started');
            try {
              await toStream(context, { ...reply, entities: [...(reply.entities ?? []), streamInfo('final', id)] });
              return;
            } catch (error) {
              // refused (ended, past two minutes, malformed): nothing of it is in the chat, so a plain message answers;
              // anything else may have arrived, so it is the retry's, which updates the stream's message if it is there
              const status = httpStatusOf(error);
              if (status !== 403 && status !== 400) throw error;
              deps.logger.warn(`teams: the stream could not take the answer (${describeError(error)}); sending it as a message`);
              return void (await context.sendActivity(reply));
            }
          }
          if (canUpdate && !streamed) id ??= await teamsPlaceholder(context, deps.deliveries, job.key, ON_IT);
          // a stream is a message only once its final arrived: an earlier attempt's final is updated, if it is there
          if (id && (!streamed || delivery.steps.includes('final:started'))) {
            try {
              await context.updateActivity({ ...reply, id });
              return;
            } catch (error) {
              deps.logger.warn(`teams: could not update the "on it" message (${describeError(error)}); sending the answer as a new one`);
            }
          }
          await context.sendActivity(reply);
        });
        await steps.record('answer');
      },
      giveUp: async (message) => {
        await inConversation(async (context) => {
          if (streamOpen && id)
            await toStream(context, { type: ActivityTypes.Message, text: message, entities: [streamInfo('final', id)] }).catch(() =>
              context.sendActivity(message),
            );
          else if (id && !streamed)
            await context.updateActivity({ id, type: ActivityTypes.Message, text: message }).catch(() => context.sendActivity(message));
          else await context.sendActivity(message);
        });
      },
    };
  };
}
