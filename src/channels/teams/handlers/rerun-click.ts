// "Re-run" under a plan answer's card: the value carries the answer's resolved
// plan and its numbers then (core/rerun.ts, the same value as Slack's button);
// the plan is asked again in the answer's conversation for the person who
// clicked, and the new answer says what changed since. Keyed by the card and
// the day, so a double click asks once (a click on another day asks again).
// In Teams the button is Action.Execute: what the click gets back (taken, or
// why not) is shown to the clicker alone; where a client has only
// Action.Submit (the Emulator, the fallback) it is said in the conversation.
import type { AdaptiveCardInvokeResponse } from 'botbuilder';
import { decodeRerun } from '../../../core/rerun.js';
import { admit } from '../../inbox.js';
import { enqueueTurn, type TeamsBotDeps, type TeamsTurn } from './turn.js';

export { RERUN_VERB } from '../render-card.js';

const RERUN_TAKEN = 'Re-running on today’s data: the new answer follows in this conversation.';
const RERUN_STALE = 'That Re-run button is from an older message; ask the question again.';
const RERUN_DONE = 'That answer was re-run today already; the new answer is in this conversation.';

/** Queues the re-run; returns what to tell the person who clicked. */
async function takeRerun(deps: TeamsBotDeps, turn: TeamsTurn): Promise<string> {
  const asked = decodeRerun(typeof turn.value?.rerun === 'string' ? turn.value.rerun : '');
  if (!asked) return RERUN_STALE;
  const activity = turn.context.activity;
  const verdict = admit(deps.gate, {
    workspace: turn.workspace,
    channel: activity.conversation.id,
    userId: turn.userId ?? 'unknown',
    click: true,
  });
  if (!verdict.go) return verdict.tellUser ?? 'Not now.';
  const today = new Date().toISOString().slice(0, 10);
  const queued = await enqueueTurn(deps, turn.context, `teams:rerun:${activity.replyToId ?? activity.id}:${today}`, {
    ...turn.message,
    text: 'Re-run on today’s data',
    plan: asked.plan,
    rerun: asked.baseline,
  });
  return queued ? RERUN_TAKEN : RERUN_DONE;
}

/** Action.Submit (the Emulator, a client without Universal Actions): a refusal is said in the conversation. */
export async function rerunClick(deps: TeamsBotDeps, turn: TeamsTurn): Promise<void> {
  const said = await takeRerun(deps, turn);
  if (said !== RERUN_TAKEN) await turn.context.sendActivity(said);
}

/** Action.Execute: what to say goes back in the invoke response, which Teams shows to the clicker only. */
export async function rerunExecute(deps: TeamsBotDeps, turn: TeamsTurn): Promise<AdaptiveCardInvokeResponse> {
  const said = await takeRerun(deps, turn);
  return { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: said as never };
}
