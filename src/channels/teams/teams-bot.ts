// The Teams bot: a TeamsActivityHandler that turns each message into the
// desk's InboundMessage and answers with an Adaptive Card. It strips the bot
// mention, understands the manifest's commands (backtest, help, digest),
// takes clarification clicks (Action.Submit data in `value`), shows a typing
// indicator and an "on it" message that becomes the answer, and stores every
// conversation's reference for proactive messages.
import { ActivityTypes, CardFactory, TeamsActivityHandler, TurnContext } from 'botbuilder';
import type pg from 'pg';
import type { DataDesk, InboundMessage } from '../../agents/desk.js';
import type { Answer } from '../../core/answer.js';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import { renderChart } from '../../charts/render.js';
import { answerCard, answerSummary, chartImage } from './render-card.js';
import { saveConversationReference } from './conversation-store.js';
import { digestCommand } from '../../digest/subscriptions.js';
import { UserError } from '../../core/errors.js';

export interface TeamsBotDeps {
  desk: DataDesk;
  pool: pg.Pool;
  logger: Logger;
  /** a URL under which the bot serves this PNG (ChartStore + GET /charts) */
  chartLink: (png: Buffer) => string;
  userLimit: RateLimiter;
  quickchartUrl?: string;
  /** time zone of digest schedules that name none */
  defaultTimezone: string;
}

interface ClarifyValue {
  datadesk?: string;
  term?: string;
  option?: string;
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
    const threadId = `teams:${activity.conversation.id}`;
    const message: Omit<InboundMessage, 'text'> = { platform: 'teams', threadId, channel: activity.conversation.id, userId };
    const value = activity.value as ClarifyValue | undefined;

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
      await this.reply(context, (progress) => this.deps.desk.choose(message, value.term!, value.option!, progress));
      return;
    }

    const text = (TurnContext.removeRecipientMention(activity) ?? activity.text ?? '').replace(/\s+/g, ' ').trim();
    const wait = this.deps.userLimit.take(`teams:${userId}`);
    if (wait > 0) {
      await context.sendActivity(`You are asking faster than I can answer well: please try again in ${wait} s.`);
      return;
    }
    if (/^digests?\b/i.test(text)) {
      try {
        await context.sendActivity(await digestCommand(this.deps.pool, text, { platform: 'teams', channel: activity.conversation.id, userId, defaultTimezone: this.deps.defaultTimezone }));
      } catch (error) {
        await context.sendActivity(error instanceof UserError ? error.message : 'The digest could not be saved; please try again.');
      }
      return;
    }
    const backtest = /^\/?backtest\b/i.exec(text);
    const inbound: InboundMessage = backtest
      ? { ...message, text: text.slice(backtest[0].length).trim() || 'help', kind: 'backtest' }
      : { ...message, text: text || 'help' };
    await this.reply(context, (progress) => this.deps.desk.answer(inbound, progress));
  }

  /** Typing, an "on it" message, then that message replaced by the answer card. */
  private async reply(context: TurnContext, produce: (progress: (step: string) => void) => Promise<Answer>): Promise<void> {
    await context.sendActivity({ type: ActivityTypes.Typing });
    const placeholder = await context.sendActivity('On it…');
    let last = 0;
    const progress = (step: string) => {
      if (!placeholder?.id || Date.now() - last < 2_000) return;
      last = Date.now();
      void context.updateActivity({ id: placeholder.id, type: ActivityTypes.Message, text: `${step}…` }).catch(() => undefined);
    };
    const answer = await produce(progress);
    let chart;
    if (answer.kind === 'result' && answer.chart) {
      try {
        chart = chartImage(await renderChart(answer.chart, this.deps.quickchartUrl), answer.chart.title, this.deps.chartLink);
      } catch (error) {
        this.deps.logger.warn(`teams: chart: ${describeError(error)}`);
      }
    }
    const reply = { type: ActivityTypes.Message, text: answerSummary(answer), attachments: [CardFactory.adaptiveCard(answerCard(answer, chart))] };
    if (placeholder?.id) {
      try {
        await context.updateActivity({ ...reply, id: placeholder.id });
        return;
      } catch (error) {
        this.deps.logger.warn(`teams: could not update the "on it" message (${describeError(error)}); sending the answer as a new one`);
      }
    }
    await context.sendActivity(reply);
  }
}
