// What an "answer" job carries: the question as the desk reads it, what to do
// with it (answer it, or apply a clarification choice), and where the reply
// goes. Receivers build it; workers, possibly in another process on another
// machine, read it back, so it is plain JSON and validated on the way in.
import { z } from 'zod';

/** Platforms whose questions are answered as jobs; each has its own queue, so a worker takes only what it can reply to. */
export const REPLY_PLATFORMS = ['slack', 'teams', 'web'] as const;
export type ReplyPlatform = (typeof REPLY_PLATFORMS)[number];

export const answerQueue = (platform: ReplyPlatform) => `answer-${platform}`;
/** where a platform's jobs go when every retry failed: the asker is told, never left waiting */
export const failedQueue = (platform: ReplyPlatform) => `answer-${platform}-failed`;

const inboundSchema = z.object({
  platform: z.enum(['slack', 'teams', 'cli', 'web']),
  threadId: z.string(),
  text: z.string(),
  channel: z.string().optional(),
  userId: z.string().optional(),
  kind: z.enum(['question', 'backtest']).optional(),
  /** a follow-up button's plan (checked again by the agent); a few KB at most */
  plan: z.record(z.string(), z.unknown()).refine((p) => JSON.stringify(p).length <= 8_000, 'a plan of at most 8,000 characters').optional(),
});

const replySchema = z.discriminatedUnion('platform', [
  /** a Slack thread: the answer replaces the placeholder in it */
  z.object({ platform: z.literal('slack'), channel: z.string(), threadTs: z.string(), userId: z.string().optional() }),
  /** a Teams conversation, reached proactively through its stored reference */
  z.object({ platform: z.literal('teams'), conversationId: z.string(), reference: z.record(z.string(), z.unknown()) }),
  /** the playground: the receiver waiting on the HTTP request picks the answer up */
  z.object({ platform: z.literal('web') }),
]);

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
export type ReplyTarget = AnswerJob['reply'];
