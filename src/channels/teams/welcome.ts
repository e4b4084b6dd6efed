// The welcome card, when the bot is added to a team, a group chat or a
// personal chat: Teams sends a conversationUpdate whose membersAdded names
// the bot (learn.microsoft.com "Conversation events in your Teams bot":
// members added, "trigger a welcome message when your bot is added"). The
// card says what the bot does, offers three example questions as buttons
// (the verified questions fixtures/help/suggested-prompts.json offers in
// Slack's agent view, each answered by a checked query; a click is asked
// as a follow-up button's is, handlers/follow-up-click.ts) and names
// `backtest help`.
//
// Once per conversation: the record is the conversation's stored reference
// (conversation_references). The welcome goes out only when this update is
// the first the bot keeps of the conversation, so removing and adding the
// bot again in the same conversation, or a second installation event, does
// not repeat it; a conversation the bot was in before this card existed is
// not welcomed either.
import { readFileSync } from 'node:fs';
import { CardFactory, TurnContext } from 'botbuilder';
import { z } from 'zod';
import { GUIDE } from '../../agents/help.js';
import { fixturePath } from '../../core/paths.js';
import { verifiedQueries } from '../../verified/verified-queries.js';
import { workspaceAllowed, type Gate } from '../inbox.js';
import { saveNewConversationReference } from './conversation-store.js';
import type { Card } from './render-card.js';
import type pg from 'pg';

/** The data of an example question's button: a follow-up without a plan (the text is asked), one answer per person. */
const EXAMPLE_VALUE = (question: string) => ({ datadesk: 'followup', text: question, example: true });

const promptsSchema = z.object({ verified: z.array(z.string()) });

let examples: string[] | undefined;

/** The three example questions: the verified questions the suggested prompts name (an id not shipped is a fixture error). */
function exampleQuestions(): string[] {
  return (examples ??= (() => {
    const file = promptsSchema.parse(JSON.parse(readFileSync(fixturePath('help', 'suggested-prompts.json'), 'utf8')));
    const byId = new Map(verifiedQueries().map((q) => [q.id, q.question]));
    return file.verified.slice(0, 3).map((id) => {
      const question = byId.get(id);
      if (!question) throw new Error(`fixtures/help/suggested-prompts.json names ${id}, which is not a verified query`);
      return question;
    });
  })());
}

const text = (t: string, style: Record<string, unknown> = {}): Card => ({
  type: 'RichTextBlock',
  inlines: [{ type: 'TextRun', text: t, ...style }],
});

/** The welcome card. `personal`: a 1:1 chat, where a message needs no mention. */
export function welcomeCard(personal: boolean): Card {
  const lines = GUIDE.split('\n');
  const what = lines[0];
  const readsOnly = lines.find((l) => /never change/i.test(l));
  const ask = personal ? 'Type a question here' : 'Mention @Data Desk with a question in a channel post or a reply';
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.5',
    body: [
      text('Hi, I am Data Desk', { weight: 'Bolder', size: 'Medium' }),
      text(what),
      text(`${ask}: I answer with the number, a table, a chart and the SQL that ran. Try one of these:`),
      text(
        `Backtests: ${personal ? '' : '@Data Desk '}backtest help shows the rule syntax; help shows more examples.${readsOnly ? ` ${readsOnly}` : ''}`,
        { size: 'Small', isSubtle: true },
      ),
    ],
    actions: exampleQuestions().map((q) => ({ type: 'Action.Submit', title: q, data: EXAMPLE_VALUE(q) })),
  };
}

/** Whether this conversationUpdate adds the bot itself (Teams also sends one for each person who joins). */
function addsTheBot(activity: TurnContext['activity']): boolean {
  const bot = activity.recipient?.id;
  return Boolean(bot && activity.membersAdded?.some((m) => m.id === bot));
}

/**
 * Welcomes the conversation when the bot was added to it and it is new to the bot: sends the card, says whether it
 * did. Called before the update's reference is stored (which would make every conversation look known).
 */
export async function welcomeOnce(context: TurnContext, pool: pg.Pool, gate: Gate, teamId?: string): Promise<boolean> {
  const activity = context.activity;
  if (!addsTheBot(activity)) return false;
  const tenant = activity.conversation?.tenantId ?? (activity.channelData as { tenant?: { id?: string } } | undefined)?.tenant?.id;
  // an organization the bot does not serve hears so when it asks, not before
  if (!workspaceAllowed(gate, tenant ?? undefined).go) return false;
  if (!(await saveNewConversationReference(pool, TurnContext.getConversationReference(activity), teamId))) return false;
  const personal = activity.conversation?.conversationType === 'personal';
  await context.sendActivity({ type: 'message', attachments: [CardFactory.adaptiveCard(welcomeCard(personal))] });
  return true;
}
