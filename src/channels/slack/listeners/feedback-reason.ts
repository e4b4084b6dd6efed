// The reason box of a 👎 (Slack's "Wrong answer" feedback button): a modal
// (views.open) with one plain_text_input, opened by the click; its submission
// (view_submission) keeps what was typed with that person's 👎 on the answer
// (feedback/feedback.ts keepReason). The modal knows the answer by its
// delivery key, the channel and thread, in private_metadata; a submission
// from another workspace than the answer's is not kept.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { describeError } from '../../../core/errors.js';
import { keepReason, REASON_LIMIT } from '../../../feedback/feedback.js';
import type { ReactionDeps } from './reaction-added.js';
import { originOf } from '../thread-reply.js';

/** The modal's callback_id, and its input's block and action ids. */
export const REASON_VIEW = 'feedback_reason';
const REASON_BLOCK = 'reason';
const REASON_INPUT = 'reason_text';

const metadataSchema = z.object({ key: z.string(), channel: z.string(), threadTs: z.string(), workspace: z.string().optional() });
type ReasonMetadata = z.infer<typeof metadataSchema>;

/** The modal view: Slack's limits are a title, submit and close of at most 24 characters, private_metadata at most 3,000. */
function reasonView(metadata: ReasonMetadata) {
  return {
    type: 'modal' as const,
    callback_id: REASON_VIEW,
    title: { type: 'plain_text' as const, text: 'What was wrong?' },
    submit: { type: 'plain_text' as const, text: 'Send' },
    close: { type: 'plain_text' as const, text: 'Skip' },
    private_metadata: JSON.stringify(metadata),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'plain_text',
          text: 'Your 👎 is noted. Saying what was wrong helps a curator fix it: a wrong number, a misread question, a missing filter…',
        },
      },
      {
        type: 'input',
        block_id: REASON_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'What was wrong with the answer?' },
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT,
          multiline: true,
          max_length: REASON_LIMIT,
          placeholder: { type: 'plain_text', text: 'e.g. it counted all of 2019, I asked about the summer' },
        },
        hint: { type: 'plain_text', text: 'Click 👎 again to take it back.' },
      },
    ],
  };
}

/** Opens the reason box for a 👎 just kept; a failure (an expired trigger) is logged: the 👎 stands without a reason. */
export async function openReasonBox(client: WebClient, triggerId: string | undefined, metadata: ReasonMetadata, deps: ReactionDeps) {
  if (!triggerId) return false;
  try {
    await client.views.open({ trigger_id: triggerId, view: reasonView(metadata) });
    return true;
  } catch (error) {
    deps.logger.warn(`slack: the reason box for ${metadata.key} could not be opened: ${describeError(error)}`);
    return false;
  }
}

export function feedbackReason(deps: ReactionDeps) {
  return async ({ ack, body, view, client, context }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    let metadata: ReasonMetadata;
    try {
      metadata = metadataSchema.parse(JSON.parse(view.private_metadata || '{}'));
    } catch {
      return;
    }
    const userId = body.user.id;
    // the workspace the submission came from must be the answer's (its key is looked up only there)
    if ((originOf(context).workspace ?? undefined) !== metadata.workspace) return;
    const reason = view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value ?? '';
    if (!reason.trim()) return;
    const say = (text: string) =>
      client.chat
        .postEphemeral({ channel: metadata.channel, user: userId, thread_ts: metadata.threadTs, text })
        .catch((error) => deps.logger.warn(`slack: the reason note to ${userId} could not be posted: ${describeError(error)}`));
    try {
      const kept = await keepReason(deps.pool, { deliveryKey: metadata.key, platform: 'slack', userId, reason });
      await say(
        kept
          ? 'Thanks: your reason is kept with the 👎; a curator will read it (datadesk feedback).'
          : 'Your 👎 on that answer was taken back meanwhile, so the reason was not kept; give the 👎 again to send one.',
      );
    } catch (error) {
      deps.logger.warn(`slack: the reason for ${metadata.key}: ${describeError(error)}`);
      await say('The reason could not be kept just now; your 👎 stands.');
    }
  };
}
