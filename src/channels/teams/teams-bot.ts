// The Teams bot, a receiver: a TeamsActivityHandler that only dispatches.
// Each message is turned into a turn (who, which tenant and thread, the card
// value of a click) and handed to one handler under handlers/: a follow-up,
// feedback or clarification click, or a typed question (digest and backtest
// commands included). Questions are queued as jobs and Teams gets its HTTP
// response at once; a worker answers through the stored conversation
// reference (teams-outbox.ts). A tenant not on TEAMS_ALLOWED_TENANTS gets one
// sentence and nothing else. The bot added to a conversation new to it posts
// its welcome card there (welcome.ts).
import {
  TeamsActivityHandler,
  TurnContext,
  type AdaptiveCardInvokeResponse,
  type AdaptiveCardInvokeValue,
  type InvokeResponse,
} from 'botbuilder';
import { workspaceAllowed } from '../inbox.js';
import { saveConversationReference } from './conversation-store.js';
import { CLARIFY_VERB, clarifyClick, clarifyExecute } from './handlers/clarify-click.js';
import { feedbackClick } from './handlers/feedback-click.js';
import { feedbackLoop, isFeedbackLoop } from './handlers/feedback-loop.js';
import { followUpClick } from './handlers/follow-up-click.js';
import { RERUN_VERB, rerunClick, rerunExecute } from './handlers/rerun-click.js';
import { question } from './handlers/question.js';
import { turnOf, type TeamsBotDeps, type TeamsTurn } from './handlers/turn.js';
import { welcomeOnce } from './welcome.js';

export type { TeamsBotDeps } from './handlers/turn.js';

export class DataDeskTeamsBot extends TeamsActivityHandler {
  constructor(private readonly deps: TeamsBotDeps) {
    super();
    this.onMessage(async (context, next) => {
      await this.answerMessage(context);
      await next();
    });
    this.onConversationUpdate(async (context, next) => {
      // the welcome first: it goes only to a conversation whose reference is not stored yet
      await welcomeOnce(context, this.deps.pool, this.deps.gate, this.teamOf(context));
      await this.remember(context);
      await next();
    });
  }

  /** Teams' feedback loop (👍/👎 under an answer) arrives as an invoke; every other invoke goes to botbuilder's. */
  protected override async onInvokeActivity(context: TurnContext): Promise<InvokeResponse> {
    if (!isFeedbackLoop(context.activity.name, context.activity.value)) return super.onInvokeActivity(context);
    const turn = turnOf(context);
    if (!workspaceAllowed(this.deps.gate, turn.workspace).go) return { status: 403 };
    return feedbackLoop(this.deps, turn);
  }

  /** A card's Action.Execute (Universal Actions): the clarification choices and Re-run; the reply goes to the clicker only. */
  protected override async onAdaptiveCardInvoke(
    context: TurnContext,
    invoke: AdaptiveCardInvokeValue,
  ): Promise<AdaptiveCardInvokeResponse> {
    const turn = turnOf(context);
    const error = (statusCode: number, code: string, message: string): AdaptiveCardInvokeResponse => ({
      statusCode,
      type: 'application/vnd.microsoft.error',
      value: { code, message } as never,
    });
    const allowed = workspaceAllowed(this.deps.gate, turn.workspace);
    if (!allowed.go) return error(403, 'Forbidden', allowed.tellUser ?? 'This organization is not served by this bot.');
    const verb = invoke.action?.verb;
    if (verb !== CLARIFY_VERB && verb !== RERUN_VERB) return error(400, 'BadRequest', `Data Desk has no card action "${verb}".`);
    await this.remember(context);
    const clicked = { ...turn, value: invoke.action.data as TeamsTurn['value'] };
    return verb === RERUN_VERB ? rerunExecute(this.deps, clicked) : clarifyExecute(this.deps, clicked);
  }

  private teamOf(context: TurnContext): string | undefined {
    return (context.activity.channelData as { team?: { id?: string } } | undefined)?.team?.id;
  }

  private async remember(context: TurnContext): Promise<void> {
    await saveConversationReference(this.deps.pool, TurnContext.getConversationReference(context.activity), this.teamOf(context));
  }

  private async answerMessage(context: TurnContext): Promise<void> {
    await this.remember(context);
    const turn = turnOf(context);
    const allowed = workspaceAllowed(this.deps.gate, turn.workspace);
    if (!allowed.go) {
      await context.sendActivity(allowed.tellUser!);
      return;
    }
    const kind = turn.value?.datadesk;
    if (kind === 'followup' && typeof turn.value?.text === 'string' && turn.value.text.trim()) return followUpClick(this.deps, turn);
    if (kind === 'feedback') return feedbackClick(this.deps, turn);
    if (kind === 'clarify') return clarifyClick(this.deps, turn);
    if (kind === 'rerun') return rerunClick(this.deps, turn);
    return question(this.deps, turn);
  }
}
