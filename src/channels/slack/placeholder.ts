// A Slack answer's placeholder, its whole life in one place: found again (the
// one recorded, or one an earlier attempt posted or streamed and never
// recorded, looked for in the thread), opened as a stream where Slack streams
// (answer-stream.ts), posted as a message otherwise, claimed on the delivery
// row (the first recorded wins: the receiver and a worker may both post one),
// and discarded when it lost that race. The metadata of the bot's thread
// messages is here too: it is how a placeholder is told from the rest.
import { bestEffort } from '../../core/best-effort.js';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../core/logger.js';
import { PlaceholderTakenError, type Deliveries, type DeliveryRow } from '../../jobs/deliveries.js';
import { canStream, openStream, STREAM_CLOSED, STREAM_STARTING, WAIT_TASK, type StreamPlace, type StreamSupport } from './answer-stream.js';
import { failure, slackErrorCode } from './slack-error.js';

/** Refusals of conversations.history that mean the app may not read it (a missing scope), not "try again". */
const NO_HISTORY = new Set(['missing_scope', 'not_allowed_token_type', 'no_permission']);
/** how far back (in messages since the post was due) a lost post is looked for */
const HISTORY_PAGES = 5;
const warnedNoHistory = new WeakSet<Logger>();

/**
 * A new post an earlier attempt made in the channel but never recorded (its reply was lost, or its process died):
 * a message since `since` carrying this delivery's key, claimed as its placeholder. Without the history scopes it
 * cannot be looked for: said once, and the post is made (a crash at that moment may then post twice).
 */
export async function postInHistory(deps: PlaceholderDeps, key: string, channel: string, since: string): Promise<Placeholder | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    let res;
    try {
      res = await deps.client.conversations.history({
        channel,
        oldest: (Date.parse(since) / 1000).toFixed(6),
        inclusive: true,
        include_all_metadata: true,
        limit: 200,
        cursor,
      });
    } catch (error) {
      const code = slackErrorCode(error);
      if (!code || !NO_HISTORY.has(code)) throw error;
      if (!warnedNoHistory.has(deps.logger)) {
        warnedNoHistory.add(deps.logger);
        deps.logger.warn(
          `slack: cannot look for lost posts (Slack says ${code} for conversations.history; the app needs channels:history and groups:history); a crash between posting and recording may post twice`,
        );
      }
      return undefined;
    }
    const mine = res.messages?.find(
      (m) => m.metadata?.event_type === PLACEHOLDER_EVENT && (m.metadata.event_payload as { key?: string } | undefined)?.key === key,
    );
    if (mine?.ts) return ((await deps.deliveries.claimPlaceholder(key, { ts: mine.ts })) as Placeholder | undefined) ?? { ts: mine.ts };
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!res.has_more || !cursor) return undefined;
  }
  return undefined;
}

export const WORKING = ':hourglass_flowing_sand: Working on it…';

/** What placing a placeholder needs: the workspace's client and the delivery rows. */
export interface PlaceholderDeps {
  client: WebClient;
  deliveries: Deliveries;
  logger: Logger;
}

/** The metadata every placeholder carries: which delivery it belongs to, so a worker can find it again. */
export const PLACEHOLDER_EVENT = 'datadesk_placeholder';
/** The metadata of the rest of an answer (its later messages, its notes): not a stream to adopt (answer-stream.ts). */
export const REPLY_EVENT = 'datadesk_reply';
export const metadataOf = (event_type: string, key: string) => ({ event_type, event_payload: { key } });
/** The metadata of a notice the bot posts in a thread (rate limit, database down): not a lost stream either. */
export const NOTICE_METADATA = { event_type: 'datadesk_notice', event_payload: {} };

/** A delivery's placeholder message: its ts, and whether it is a stream (answer-stream.ts). */
export type Placeholder = Record<string, string> & { ts: string; stream?: string };

/** How a placeholder may be opened as a stream: where, with what first task, and whether this Slack streams. */
export interface StreamOpening {
  support: StreamSupport;
  place: StreamPlace;
  title: string;
}

/** Stops and deletes a stream that lost the race to be the placeholder (or could not be recorded). */
async function discardStream(client: WebClient, channel: string, ts: string): Promise<void> {
  await bestEffort(client.chat.stopStream({ channel, ts }), 'stopping a Slack stream');
  await bestEffort(client.chat.delete({ channel, ts }), 'deleting a Slack placeholder');
}

/**
 * The placeholder as a stream, recorded; undefined where this Slack does not
 * stream here (the caller posts a plain placeholder, or none).
 */
async function streamedPlaceholder(deps: PlaceholderDeps, key: string, opening: StreamOpening): Promise<Placeholder | undefined> {
  const { support, place } = opening;
  if (!support.on(place.workspace) || !canStream(place)) return undefined;
  await deps.deliveries.recordStep(key, `${STREAM_STARTING}${Date.now()}`);
  let ts: string;
  try {
    ts = await openStream(deps.client, place, { id: WAIT_TASK, title: opening.title, status: 'in_progress' });
  } catch (error) {
    const code = slackErrorCode(error);
    if (!code) throw error;
    support.refused(place.workspace, code);
    deps.logger.info(`slack: chat.startStream was refused (${code}); answering with a placeholder message instead`);
    return undefined;
  }
  let winner: Placeholder | undefined;
  try {
    winner = (await deps.deliveries.claimPlaceholder(key, { ts, stream: '1' })) as Placeholder | undefined;
  } catch (error) {
    // a worker took it for a lost stream of its own question (answer-stream.ts): it is that answer's now
    if (error instanceof PlaceholderTakenError) {
      deps.logger.info(`slack: the stream begun for ${key} was adopted by another question; this one gets a message of its own`);
      return undefined;
    }
    // unrecorded, it would say "In line" for good: take it back before giving up
    await discardStream(deps.client, place.channel, ts);
    throw error;
  }
  if (winner && winner.ts !== ts) await discardStream(deps.client, place.channel, ts);
  return winner ?? { ts, stream: '1' };
}

/**
 * The placeholder message of a delivery: the one recorded, or a new one (a
 * stream where this Slack streams). When the receiver and a worker both post
 * one at once, the first recorded wins and the other is deleted.
 */
export async function placeholderFor(
  deps: PlaceholderDeps,
  key: string,
  channel: string,
  threadTs: string,
  text: string,
  recorded?: Placeholder,
  stream?: StreamOpening,
): Promise<Placeholder> {
  if (recorded) return recorded;
  const streamed = stream && (await streamedPlaceholder(deps, key, stream));
  if (streamed) return streamed;
  const posted = await deps.client.chat.postMessage({
    channel,
    thread_ts: threadTs,
    text,
    metadata: metadataOf(PLACEHOLDER_EVENT, key),
  });
  const winner = ((await deps.deliveries.claimPlaceholder(key, { ts: posted.ts! })) as Placeholder | undefined) ?? { ts: posted.ts! };
  if (winner.ts !== posted.ts)
    await bestEffort(deps.client.chat.delete({ channel, ts: posted.ts! }), 'deleting a duplicate Slack placeholder');
  return winner;
}

/**
 * A placeholder posted for this delivery but never recorded: the process that
 * posted it died in between. Found in the thread by its metadata (needs the
 * history scopes), so the answer replaces it instead of leaving it to say
 * "Working on it…" for good.
 */
async function orphanedPlaceholder(
  deps: PlaceholderDeps,
  key: string,
  channel: string,
  threadTs: string,
): Promise<Placeholder | undefined> {
  try {
    const replies = await deps.client.conversations.replies({ channel, ts: threadTs, include_all_metadata: true, limit: 200 });
    const mine = replies.messages?.find(
      (m) => m.metadata?.event_type === PLACEHOLDER_EVENT && (m.metadata.event_payload as { key?: string } | undefined)?.key === key,
    );
    if (!mine?.ts) return undefined;
    return (await deps.deliveries.claimPlaceholder(key, { ts: mine.ts })) as Placeholder | undefined;
  } catch (error) {
    deps.logger.debug(`slack: could not look for an earlier placeholder of ${key} (${failure(error)})`);
    return undefined;
  }
}

/** An earlier attempt's placeholder never recorded: a plain one (by its metadata), else a stream (answer-stream.ts). */
async function orphanOf(deps: PlaceholderDeps, key: string, place: StreamPlace): Promise<Placeholder | undefined> {
  const plain = await orphanedPlaceholder(deps, key, place.channel, place.threadTs);
  if (plain) return plain;
  const steps = (await deps.deliveries.get(key))?.steps ?? [];
  return (await orphanedStream(deps, key, place, steps)) as Placeholder | undefined;
}

/**
 * The placeholder a worker's reply goes into: the one recorded (waiting a moment for the receiver's), an earlier
 * attempt's never recorded (found in the thread), else a new one (a stream where Slack can). An agent-view thread
 * shows its waiting in the status line (a message in the thread would clear it): no placeholder until a worker has
 * the question, and then only a stream; without one, the answer is the first message, posted with the
 * placeholder's metadata and recorded the same way, so a retry finds it and updates it instead of posting a second.
 */
export async function placeholderOfReply(
  deps: PlaceholderDeps,
  key: string,
  delivery: DeliveryRow,
  place: StreamPlace,
  support: StreamSupport,
  agentView?: boolean,
): Promise<Placeholder | undefined> {
  const opening: StreamOpening = { support, place, title: 'Working on it' };
  if (agentView) {
    const found = (delivery.placeholder as Placeholder | null) ?? (await orphanOf(deps, key, place));
    if (found || delivery.steps.includes('answer')) return found;
    return streamedPlaceholder(deps, key, opening);
  }
  // whether this attempt began the answer already (steps other than the stream's start)
  const begun = delivery.steps.some((s) => !s.startsWith(STREAM_STARTING));
  const recorded = ((await deps.deliveries.placeholderSoon(delivery)) as Placeholder | undefined) ?? (await orphanOf(deps, key, place));
  const placeholder = await placeholderFor(deps, key, place.channel, place.threadTs, WORKING, recorded, opening);
  // a question that waited in line said so; now it is being answered
  if (recorded && !recorded.stream && !begun)
    await bestEffort(
      deps.client.chat.update({ channel: place.channel, ts: recorded.ts, text: WORKING }),
      'marking a Slack placeholder as working',
    );
  return placeholder;
}

interface ThreadMessage {
  ts?: string;
  bot_id?: string;
  files?: unknown[];
  metadata?: unknown;
}

/** This app's bot id in the client's workspace (auth.test, asked once a client): whose messages are ours. */
const botIds = new WeakMap<WebClient, Promise<string | undefined>>();
function ourBotId(client: WebClient): Promise<string | undefined> {
  let id = botIds.get(client);
  if (!id) {
    id = client.auth.test().then((r) => r.bot_id);
    id.catch(() => botIds.delete(client));
    botIds.set(client, id);
  }
  return id;
}

/**
 * A stream a dead process started for this delivery but never recorded: a
 * message of this app's bot in the thread, posted within a minute after the
 * recorded start, with no metadata (every other message the bot posts in a
 * thread carries some) and no file, that no delivery has as its placeholder.
 * Claimed as this delivery's (the earliest, when there are more). It may be a
 * live process's stream not recorded yet (another question of the thread,
 * begun that moment): then one of the two claims fails (migration 030), and
 * the loser, adopter or starter, goes on without it, so no message ever holds
 * two answers.
 */
export async function orphanedStream(
  deps: PlaceholderDeps,
  key: string,
  place: StreamPlace,
  steps: string[],
): Promise<Record<string, string> | undefined> {
  const started = steps.filter((s) => s.startsWith(STREAM_STARTING)).map((s) => Number(s.slice(STREAM_STARTING.length)) / 1000);
  if (!started.length) return undefined;
  try {
    const bot = await ourBotId(deps.client);
    if (!bot) return undefined;
    const replies = await deps.client.conversations.replies({
      channel: place.channel,
      ts: place.threadTs,
      include_all_metadata: true,
      limit: 200,
    });
    const near = ((replies.messages ?? []) as ThreadMessage[]).filter(
      (m) =>
        m.ts &&
        m.ts !== place.threadTs &&
        m.bot_id === bot &&
        !m.metadata &&
        !m.files?.length &&
        started.some((at) => Number(m.ts) >= at - 2 && Number(m.ts) <= at + 60),
    );
    if (!near.length) return undefined;
    const claimed = await deps.deliveries.placeholdersAmong(
      place.channel,
      near.map((m) => m.ts!),
    );
    const mine = near.find((m) => !claimed.has(m.ts!));
    if (!mine) return undefined;
    return await deps.deliveries.claimPlaceholder(key, { ts: mine.ts!, stream: '1' });
  } catch (error) {
    deps.logger.debug(`slack: could not look for an earlier stream of ${key} (${(error as Error).message})`);
    return undefined;
  }
}

/**
 * The placeholder's stream as a reply sink uses it, its state kept here: open while Slack takes appends; closed
 * once Slack says it is (it expired), once it is stopped, or from the start when an earlier attempt began the
 * headline (it may have sent part of it: that attempt's stream is stopped and the answer replaces it).
 */
export class PlaceholderStream {
  private constructor(
    private readonly client: WebClient,
    private readonly channel: string,
    private readonly ts: string,
    private open: boolean,
  ) {}

  /** The stream of this placeholder, if it is one: continued, or stopped when `headlineBegun`. */
  static async resume(
    client: WebClient,
    channel: string,
    placeholder: Placeholder | undefined,
    headlineBegun: boolean,
  ): Promise<PlaceholderStream | undefined> {
    if (placeholder?.stream !== '1') return undefined;
    const stream = new PlaceholderStream(client, channel, placeholder.ts, true);
    if (headlineBegun) await stream.close();
    return stream;
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Appends to the stream; a stream Slack has closed is marked so (the answer then goes by chat.update). */
  async append(chunks: unknown[]): Promise<void> {
    try {
      await this.client.chat.appendStream({ channel: this.channel, ts: this.ts, chunks: chunks as never });
    } catch (error) {
      if (slackErrorCode(error) === STREAM_CLOSED) this.open = false;
      throw error;
    }
  }

  /** Ends the stream with the answer's blocks and the placeholder's metadata. */
  async end(blocks: unknown[], metadata: ReturnType<typeof metadataOf>): Promise<void> {
    await this.client.chat.stopStream({ channel: this.channel, ts: this.ts, blocks: blocks as never, metadata });
    this.open = false;
  }

  /** Stops the stream if it is still open, so that what follows is an update of a finished message. */
  async close(): Promise<void> {
    if (this.open) await bestEffort(this.client.chat.stopStream({ channel: this.channel, ts: this.ts }), 'stopping a Slack stream');
    this.open = false;
  }
}
