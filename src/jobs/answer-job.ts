// What an "answer" job carries: the question as the desk reads it, what to do
// with it (answer it, or apply a clarification choice), and where the reply
// goes. Receivers build it; workers, possibly in another process on another
// machine, read it back, so it is plain JSON and validated on the way in.
import { z } from 'zod';
import { CHAT_PLATFORMS, PLATFORMS, REPLY_PLATFORMS, type ReplyPlatform } from '../core/platform.js';
import { rerunBaselineSchema } from '../core/rerun.js';

/** each reply platform has its own queue, so a worker takes only what it can reply to */

export const answerQueue = (platform: ReplyPlatform) => `answer-${platform}`;
/** where a platform's jobs go when every retry failed: the asker is told, never left waiting */
export const failedQueue = (platform: ReplyPlatform) => `answer-${platform}-failed`;

const inboundSchema = z.object({
  platform: z.enum(PLATFORMS),
  threadId: z.string(),
  text: z.string(),
  channel: z.string().optional(),
  workspace: z.string().optional(),
  userId: z.string().optional(),
  kind: z.enum(['question', 'backtest']).optional(),
  /** a follow-up button's plan (checked again by the agent); a few KB at most */
  plan: z
    .record(z.string(), z.unknown())
    .refine((p) => JSON.stringify(p).length <= 8_000, 'a plan of at most 8,000 characters')
    .optional(),
  /** a Re-run of an answer: its numbers then, so the new answer says what changed (core/rerun.ts) */
  rerun: rerunBaselineSchema.optional(),
});

/**
 * Where the reply goes: the platform whose outbox replies, and that platform's own fields (a Slack thread and
 * workspace, a Teams conversation reference), which its outbox checks (src/channels/<platform>/<platform>-outbox.ts).
 */
const replySchema = z.object({ platform: z.enum(REPLY_PLATFORMS) }).catchall(z.unknown());

export const answerJobSchema = z.object({
  /** the delivery key (see deliveries.ts): one job, one answer per key */
  key: z.string(),
  message: inboundSchema,
  action: z.discriminatedUnion('type', [
    z.object({ type: z.literal('answer') }),
    z.object({ type: z.literal('choose'), term: z.string(), option: z.string() }),
  ]),
  reply: replySchema,
});

export type AnswerJob = z.infer<typeof answerJobSchema>;

/**
 * A digest period as a job: the scheduler claimed the period (its digest_runs row, `runId`) and hands it to the
 * inbox; a worker of its platform produces the digest and posts it through the platform's reply sink. `key` is
 * the period's delivery key (digest:<subscription>:<period end>).
 */
export const digestJobSchema = z.object({
  kind: z.literal('digest'),
  key: z.string(),
  platform: z.enum(CHAT_PLATFORMS),
  subscriptionId: z.number().int(),
  runId: z.number().int(),
  start: z.string(),
  end: z.string(),
});

export type DigestJob = z.infer<typeof digestJobSchema>;

/** What the queue carries: a question's job or a digest period's. */
export type QueuedJob = AnswerJob | DigestJob;

export const isDigestJob = (job: unknown): job is DigestJob => (job as { kind?: unknown } | null)?.kind === 'digest';

/** The platform whose queue (and outbox) a job goes to. */
export const replyPlatformOf = (job: QueuedJob): ReplyPlatform => (isDigestJob(job) ? job.platform : job.reply.platform);

/**
 * A digest job's retries, as job options on its platform's answer queue: a period another runner holds, or one
 * whose run failed on a lost connection, is tried again every 30 s for a while (its run row then says why); a job
 * still active after 15 minutes (its worker gone) is failed and retried.
 */
export const DIGEST_JOB_OPTIONS = { retryLimit: 10, retryDelay: 30, expireInSeconds: 900 } as const;
