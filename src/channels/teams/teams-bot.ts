// The Teams bot, a receiver: a TeamsActivityHandler that turns each message
// into the desk's InboundMessage and queues it as a job keyed by the
// activity id (a redelivered activity is answered once), shows a typing
// indicator and an "on it" message (or its place in line), and returns, so
// Teams gets its HTTP response at once. A worker answers through the stored
// conversation reference (teams-outbox.ts). The bot strips its mention,
// understands the manifest's commands (backtest, help, digest) and takes
// clarification clicks (Action.Submit data in `value`).
import { ActivityTypes, TeamsActivityHandler, TurnContext } from 'botbuilder';
import type pg from 'pg';
import type { DataDesk, InboundMessage } from '../../agents/desk.js';
import type { Logger } from '../../core/logger.js';
import { admit, inLineText, workspaceAllowed, type Gate } from '../inbox.js';
import { isCurator } from '../../feedback/curators.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../db/errors.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { Deliveries } from '../../jobs/deliveries.js';
import type { AnswerQueue } from '../../jobs/queue.js';
import { saveConversationReference } from './conversation-store.js';
import { digestCommand } from '../../digest/subscriptions.js';
import { UserError } from '../../core/errors.js';
import { recordFeedback } from '../../feedback/feedback.js';
import type { VerifiedStore } from '../../knowledge/verified-store.js';
import { ON_IT, teamsPlaceholder, type TeamsReplyTarget } from './teams-outbox.js';

export interface TeamsBotDeps {
  /** asked only which clarification a conversation waits for */
  desk: Pick<DataDesk, 'pendingChoice'>;
  queue: AnswerQueue;
  deliveries: Deliveries;
  pool: pg.Pool;
  logger: Logger;
  /** the tenant allow-list (TEAMS_ALLOWED_TENANTS) and the rate limits, per tenant */
  gate: Gate;
  /** time zone of digest schedules that name none */
  defaultTimezone: string;
  /** where 👍/👎 on answer cards are kept, and whose 👍 makes a question verified */
  feedback?: { verified: VerifiedStore; curators: string[] };
}

/** What the card buttons send back (Action.Submit data in `value`): a clarification choice or feedback. */
interface CardValue {
  datadesk?: string;
  term?: string;
  option?: string;
  key?: string;
  verdict?: string;
  /** a suggested follow-up's question, and the plan it asks */
  text?: string;
  plan?: unknown;
}

/** The tenant (organization) an activity came from: Teams' workspace. */
function tenantOf(activity: TurnContext['activity']): string | undefined {
  return activity.conversation?.tenantId ?? (activity.channelData as { tenant?: { id?: string } } | undefined)?.tenant?.id ?? undefined;
}

export class DataDeskTeamsBot extends TeamsActivityHandler {
  constructor(private readonly deps: TeamsBotDeps) {
    super();
    this.onMessage(async (context, next) => {
      await this.answerMessage(context);
      await next();
    });
    this.onConversationUpdate(async (context, next) => {
      await this.remember(context);
      await next();
    });
  }

  private async remember(context: TurnContext): Promise<void> {
    const teamId = (context.activity.channelData as { team?: { id?: string } } | undefined)?.team?.id;
    await saveConversationReference(this.deps.pool, TurnContext.getConversationReference(context.activity), teamId);
  }

  private async answerMessage(context: TurnContext): Promise<void> {
    await this.remember(context);
    const activity = context.activity;
    const userId = activity.from?.aadObjectId ?? activity.from?.id;
    const workspace = tenantOf(activity);
    const threadId = workspace ? `teams:${workspace}:${activity.conversation.id}` : `teams:${activity.conversation.id}`;
    const message: Omit<InboundMessage, 'text'> = { platform: 'teams', threadId, channel: activity.conversation.id, workspace, userId };
    const value = activity.value as CardValue | undefined;
    // every message, click and command: a tenant not on the allow-list gets one sentence and nothing else
    const allowed = workspaceAllowed(this.deps.gate, workspace);
    if (!allowed.go) {
      await context.sendActivity(allowed.tellUser!);
      return;
    }
    // a question (typed, or a follow-up click) or a digest command: the allow-lists and rate limits
    const admitted = async () => {
      const verdict = admit(this.deps.gate, { workspace, channel: activity.conversation.id, userId: userId ?? 'unknown' });
      if (!verdict.go && verdict.tellUser) await context.sendActivity(verdict.tellUser);
      return verdict.go;
    };

    if (value?.datadesk === 'followup' && typeof value.text === 'string' && value.text.trim()) {
      // a follow-up click is a new question: it counts against the asker's limit like a typed one
      if (!(await admitted())) return;
      const plan = value.plan && typeof value.plan === 'object' && !Array.isArray(value.plan) ? (value.plan as Record<string, unknown>) : undefined;
      await this.enqueue(context, `teams:click:${activity.replyToId ?? activity.id}:followup:${value.text}`.slice(0, 500), { ...message, text: value.text.trim().slice(0, 500), ...(plan ? { plan } : {}) });
      return;
    }
    if (value?.datadesk === 'feedback') {
      await this.feedback(context, value, userId, workspace);
      return;
    }
    if (value?.datadesk === 'clarify') {
      const pending = await this.deps.desk.pendingChoice(threadId);
      if (!value.term || !value.option || !pending || pending.term !== value.term) {
        await context.sendActivity('That question was already answered or has expired. Ask it again to get fresh choices.');
        return;
      }
      if (pending.userId && pending.userId !== userId) {
        await context.sendActivity('Someone else asked this question; the choice is theirs. Ask your own question to get your own choices.');
        return;
      }
      await this.enqueue(context, `teams:click:${activity.replyToId ?? activity.id}:${value.term}`, { ...message, text: `(choice ${value.term}=${value.option})` }, {
        type: 'choose', term: value.term, option: value.option,
      });
      return;
    }

    const text = (TurnContext.removeRecipientMention(activity) ?? activity.text ?? '').replace(/\s+/g, ' ').trim();
    if (!(await admitted())) return;
    if (/^digests?\b/i.test(text)) {
      try {
        await context.sendActivity(await digestCommand(this.deps.pool, text, { platform: 'teams', workspace, channel: activity.conversation.id, userId, defaultTimezone: this.deps.defaultTimezone }));
      } catch (error) {
        await context.sendActivity(error instanceof UserError ? error.message : 'The digest could not be saved; please try again.');
      }
      return;
    }
    const backtest = /^\/?backtest\b/i.exec(text);
    const inbound: InboundMessage = backtest
      ? { ...message, text: text.slice(backtest[0].length).trim() || 'help', kind: 'backtest' }
      : { ...message, text: text || 'help' };
    await this.enqueue(context, `teams:activity:${activity.id ?? `${activity.conversation.id}:${activity.timestamp}`}`, inbound);
  }

  /** 👍/👎 on an answer card: kept; a curator's 👍 makes the question verified. Only a card of this conversation counts. */
  private async feedback(context: TurnContext, value: CardValue, userId: string | undefined, workspace: string | undefined): Promise<void> {
    const { feedback } = this.deps;
    const key = typeof value.key === 'string' ? value.key : '';
    const delivery = key ? await this.deps.deliveries.get(key) : undefined;
    if (!feedback || !userId || !delivery || delivery.channel !== context.activity.conversation.id || (value.verdict !== 'up' && value.verdict !== 'down')) {
      await context.sendActivity('That answer can no longer take feedback (answers are kept for 3 days).');
      return;
    }
    try {
      const outcome = await recordFeedback(this.deps.pool, this.deps.deliveries, feedback.verified, {
        deliveryKey: key, platform: 'teams', workspace, userId, verdict: value.verdict, curator: isCurator(feedback.curators, workspace, userId),
      });
      await context.sendActivity(outcome.message);
    } catch (error) {
      await context.sendActivity(error instanceof UserError ? error.message : 'The feedback could not be kept this time; please try again.');
    }
  }

  /** Queues the question and shows it: typing, then "on it" (or its place in line), which the worker replaces. */
  private async enqueue(context: TurnContext, key: string, message: InboundMessage, action: AnswerJob['action'] = { type: 'answer' }): Promise<void> {
    const reference = TurnContext.getConversationReference(context.activity) as Record<string, unknown>;
    let queued: boolean;
    try {
      const reply: TeamsReplyTarget = { platform: 'teams', conversationId: context.activity.conversation.id, reference };
      queued = await this.deps.queue.enqueue({ key, message, action, reply });
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      await context.sendActivity(DATABASE_UNAVAILABLE_MESSAGE);
      return;
    }
    if (!queued) {
      this.deps.logger.debug(`teams: ${key} was delivered before; not answered twice`);
      return;
    }
    await context.sendActivity({ type: ActivityTypes.Typing });
    const ahead = await this.deps.deliveries.aheadOf(key);
    const row = await this.deps.deliveries.get(key);
    if (!row?.placeholder) {
      await teamsPlaceholder(context, this.deps.deliveries, key, inLineText(ahead) ?? ON_IT);
    }
  }
}
