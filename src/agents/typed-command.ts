// "/backtest RULES" typed where there is no slash command (the playground, the
// terminal chat, `datadesk ask`): the same backtest a Slack /backtest runs, and
// "/backtest" alone is its help. Anything else is a question.
import type { InboundMessage } from './desk.js';

export function typedCommand(text: string): Pick<InboundMessage, 'text' | 'kind'> {
  const backtest = /^\/backtest\b/i.exec(text);
  return backtest ? { text: text.slice(backtest[0].length).trim() || 'help', kind: 'backtest' } : { text, kind: 'question' };
}
