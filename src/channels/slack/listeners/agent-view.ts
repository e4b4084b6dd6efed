// Slack's agent view (features.agent_view): a person opens a thread with
// Data Desk from its own entry point. On opening, the thread offers
// suggested prompts (fixtures/help/suggested-prompts.json: verified questions,
// each answered by a checked query, and a backtest); a message in it is a
// question like a DM's, queued the same way, with a status and its loading
// messages while it waits and runs, and the thread titled with the question
// (the worker retitles it with the resolved question, see slack-outbox.ts).
import { readFileSync } from 'node:fs';
import { Assistant } from '@slack/bolt';
import { z } from 'zod';
import { fixturePath } from '../../../core/paths.js';
import { verifiedQueries } from '../../../verified/verified-queries.js';
import type { Gate } from '../../inbox.js';
import { fromSlackText, threadTitle } from '../slack-text.js';
import type { SlackReceiverDeps } from '../thread-reply.js';
import { queueDirectQuestion } from './direct-message.js';

const promptsSchema = z.object({
  title: z.string(),
  verified: z.array(z.string()),
  backtest: z.object({ title: z.string(), message: z.string() }),
});

/** Slack shows at most four prompts; a title is at most 75 characters. */
const MAX_PROMPTS = 4;

/** The suggested prompts, from the fixture: the listed verified questions (an id not shipped is a fixture error, raised), then the backtest. */
let prompts: { title: string; prompts: { title: string; message: string }[] } | undefined;

function suggestedPrompts(): { title: string; prompts: { title: string; message: string }[] } {
  // read once: the fixture and the verified questions do not change while the app runs
  return (prompts ??= readPrompts());
}

function readPrompts(): { title: string; prompts: { title: string; message: string }[] } {
  const file = promptsSchema.parse(JSON.parse(readFileSync(fixturePath('help', 'suggested-prompts.json'), 'utf8')));
  const byId = new Map(verifiedQueries().map((q) => [q.id, q.question]));
  const questions = file.verified.map((id) => {
    const question = byId.get(id);
    if (!question) throw new Error(`fixtures/help/suggested-prompts.json names ${id}, which is not a verified query`);
    return { title: question.length <= 75 ? question : `${question.slice(0, 74)}…`, message: question };
  });
  return { title: file.title, prompts: [...questions, file.backtest].slice(0, MAX_PROMPTS) };
}

/** What the status line rotates through while a question waits and runs. */
const LOADING_MESSAGES = ['Reading the question…', 'Writing the query…', 'Checking it with EXPLAIN…', 'Counting…'];

export function agentView(deps: SlackReceiverDeps, gate: Gate): Assistant {
  return new Assistant({
    threadStarted: async ({ setSuggestedPrompts }) => {
      await setSuggestedPrompts(suggestedPrompts());
    },
    // the context (which channel the person is looking at) is not used: questions name their place
    threadContextChanged: async () => undefined,
    userMessage: async (args) => {
      const { message, setStatus, setTitle } = args;
      if (message.subtype !== undefined || 'bot_id' in message || !('thread_ts' in message) || !message.thread_ts) return;
      const queued = await queueDirectQuestion(deps, gate, args, message.thread_ts, true);
      if (!queued) return;
      const text = ('text' in message && message.text) || 'help';
      // cosmetic, after the question is safe in the queue: a failure here loses nothing
      await Promise.allSettled([
        setTitle(threadTitle(fromSlackText(text))),
        setStatus({ status: 'is looking into it…', loading_messages: LOADING_MESSAGES }),
      ]);
    },
  });
}
