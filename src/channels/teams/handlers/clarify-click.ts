// A clarification choice: only the question waiting in this thread takes it,
// and only from who asked it. In Teams the choice buttons are Action.Execute
// (Universal Actions): Teams sends an adaptiveCard/action invoke, and what the
// bot says back (taken, or why not) is shown to the person who clicked alone,
// never posted in the channel. Where the client has only Action.Submit (the
// Emulator, older clients through the buttons' fallback), the choice arrives
// as a message and the answer to it is a message in the conversation.
import type { AdaptiveCardInvokeResponse } from 'botbuilder';
import { enqueueTurn, type TeamsBotDeps, type TeamsTurn } from './turn.js';

export { CLARIFY_VERB } from '../render-card.js';

const CHOICE_GONE = 'That question was already answered or has expired. Ask it again to get fresh choices.';
const CHOICE_NOT_YOURS = 'Someone else asked this question; the choice is theirs. Ask your own question to get your own choices.';
const CHOICE_TAKEN = 'Got it: the answer follows in this conversation.';

/** Queues the choice; returns what to tell the person who clicked. */
async function takeChoice(deps: TeamsBotDeps, { context, value, userId, message }: TeamsTurn): Promise<string> {
  const pending = await deps.desk.pendingChoice(message.threadId);
  if (!value?.term || !value.option || !pending || pending.term !== value.term) return CHOICE_GONE;
  if (pending.userId && pending.userId !== userId) return CHOICE_NOT_YOURS;
  const activity = context.activity;
  await enqueueTurn(
    deps,
    context,
    `teams:click:${activity.replyToId ?? activity.id}:${value.term}`,
    { ...message, text: `(choice ${value.term}=${value.option})` },
    { type: 'choose', term: value.term, option: value.option },
  );
  return CHOICE_TAKEN;
}

/** Action.Submit: a refusal is said in the conversation (the queued answer says the rest). */
export async function clarifyClick(deps: TeamsBotDeps, turn: TeamsTurn): Promise<void> {
  const said = await takeChoice(deps, turn);
  if (said !== CHOICE_TAKEN) await turn.context.sendActivity(said);
}

/** Action.Execute: what to say goes back in the invoke response, which Teams shows to the clicker only. */
export async function clarifyExecute(deps: TeamsBotDeps, turn: TeamsTurn): Promise<AdaptiveCardInvokeResponse> {
  const said = await takeChoice(deps, turn);
  return { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: said as never };
}
