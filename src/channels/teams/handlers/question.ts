// A typed message: the bot's mention dropped, then "digest ...", "backtest
// ..." or a question, queued under the activity id (a redelivered activity is
// answered once).
import { TurnContext } from 'botbuilder';
import type { InboundMessage } from '../../../agents/desk.js';
import { digestCommand } from './digest-command.js';
import { admitted, enqueueTurn, type TeamsBotDeps, type TeamsTurn } from './turn.js';

export async function question(deps: TeamsBotDeps, turn: TeamsTurn): Promise<void> {
  const activity = turn.context.activity;
  const text = (TurnContext.removeRecipientMention(activity) ?? activity.text ?? '').replace(/\s+/g, ' ').trim();
  if (!(await admitted(deps, turn))) return;
  if (/^digests?\b/i.test(text)) {
    await digestCommand(deps, turn, text);
    return;
  }
  const backtest = /^\/?backtest\b/i.exec(text);
  const inbound: InboundMessage = backtest
    ? { ...turn.message, text: text.slice(backtest[0].length).trim() || 'help', kind: 'backtest' }
    : { ...turn.message, text: text || 'help' };
  await enqueueTurn(deps, turn.context, `teams:activity:${activity.id ?? `${activity.conversation.id}:${activity.timestamp}`}`, inbound);
}
