// "digest ...": subscribe, list or turn off this conversation's digests (in
// this tenant), answered at once in the conversation.
import { UserError } from '../../../core/errors.js';
import { digestCommand as runDigestCommand } from '../../../digest/subscriptions.js';
import type { TeamsBotDeps, TeamsTurn } from './turn.js';

export async function digestCommand(deps: TeamsBotDeps, { context, workspace, userId }: TeamsTurn, text: string): Promise<void> {
  try {
    const reply = await runDigestCommand(deps.pool, text, {
      platform: 'teams',
      workspace,
      channel: context.activity.conversation.id,
      userId,
      defaultTimezone: deps.defaultTimezone,
    });
    await context.sendActivity(reply);
  } catch (error) {
    await context.sendActivity(error instanceof UserError ? error.message : 'The digest could not be saved; please try again.');
  }
}
