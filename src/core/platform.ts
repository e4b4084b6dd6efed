// The platform seam. The one list of platforms, and the one outbound interface
// each chat platform implements (src/channels/<platform>/<platform>-outbox.ts):
// what a worker needs to show a question's progress and its answer, in its
// thread or (a digest) in a new channel post. Code outside src/channels never
// names a platform: it reads these lists and calls an Outbox.
import type { Answer } from './answer.js';
import type { Step } from './progress.js';

/** Chat platforms: they post into channels and run digests. */
export const CHAT_PLATFORMS = ['slack', 'teams'] as const;
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

/** Platforms whose questions are answered as jobs (each has its own queue): the chat platforms and the playground. */
export const REPLY_PLATFORMS = [...CHAT_PLATFORMS, 'web'] as const;
export type ReplyPlatform = (typeof REPLY_PLATFORMS)[number];

/** Every place a question can come from: the reply platforms and the terminal. */
export const PLATFORMS = [...REPLY_PLATFORMS, 'cli'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const isChatPlatform = (p: string): p is ChatPlatform => (CHAT_PLATFORMS as readonly string[]).includes(p);

/** How a person subscribes a digest on each chat platform (the guide says it in their words). */
export const DIGEST_COMMAND: Record<ChatPlatform, string> = { slack: '/datadesk digest', teams: 'digest' };

/** A thread on some platform, as the neutral code knows it: an id for memory, the channel, the workspace. */
export interface ThreadRef {
  platform: Platform;
  /** stable across the thread's messages (thread memory is keyed by it); includes the workspace */
  threadId: string;
  channel?: string;
  /**
   * Whose data the thread is part of: a Slack workspace (team id), a Teams tenant, or undefined (the playground,
   * the terminal). Thread memory, feedback, verified pairs, exports, digests and rate limits are kept per
   * workspace, so two workspaces of one running app never see each other's.
   */
  workspace?: string;
}

/** Reply steps a retry must not repeat (posting a second message, uploading the chart again). */
interface StepLog {
  done(step: string): boolean;
  record(step: string): Promise<void>;
}

/** How a platform shows one question's progress and its answer (made per job by a platform's Outbox). */
export interface ReplySink {
  /** the current step on the placeholder ("Reading the schema"); best effort, rate-limited by the sink */
  progress(step: Step): void;
  /** the answer in place of the placeholder, skipping steps a previous attempt finished */
  deliver(answer: Answer, steps: StepLog): Promise<void>;
  /** every attempt failed: say so where the asker looks */
  giveUp(message: string): Promise<void>;
}

/** The channel a digest posts into, and whose it is (a digest subscription row is one). */
export interface PostTarget {
  channel: string;
  workspace?: string | null;
  /** the Slack enterprise of an org-wide install, when there is one */
  enterprise_id?: string | null;
}

/** The channel is gone (bot removed, archived, deleted, app uninstalled): the digest is disabled, not retried. */
export class ChannelGoneError extends Error {}

/**
 * A step a channel post's sink records when an earlier attempt may have posted and the platform has no history to
 * look in (Teams): the post is not made again (a duplicate in a channel is worse than a missing one), and the run says so.
 */
export const UNCONFIRMED_POST = 'post:unconfirmed';

/** A new post in a channel (a digest): what the job's reply target says instead of a thread. */
interface NewPost {
  /** the post is made at or after this moment (ISO): where an earlier attempt's post is looked for */
  since: string;
}

/**
 * Everything a platform sends: replies (a ReplySink per job; `job` and `delivery` are the answer job and its
 * delivery row), into the thread a question came from or, for chat platforms, into a new channel post (a digest),
 * whose reply target `newPost` makes: its first message is the post, the rest and the chart go in its thread.
 */
export interface Outbox<Job = unknown, Delivery = unknown> {
  replies(job: Job, delivery: Delivery): Promise<ReplySink>;
  /** the reply target of a new post in this channel; throws ChannelGoneError when the channel cannot be reached */
  newPost?(to: PostTarget, post: NewPost): Promise<{ platform: ReplyPlatform } & Record<string, unknown>>;
}
