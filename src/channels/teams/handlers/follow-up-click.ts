// A suggested follow-up's button: a new question in the thread (the plan it
// carries is checked again by the agent), counted against the asker's limit
// like a typed one. A button is answered once (a double click is one
// question); a welcome card's example question once for each person.
import { admitted, enqueueTurn, type TeamsBotDeps, type TeamsTurn } from './turn.js';

export async function followUpClick(deps: TeamsBotDeps, turn: TeamsTurn): Promise<void> {
  const { value, context, message } = turn;
  const text = typeof value?.text === 'string' ? value.text.trim() : '';
  if (!text || !(await admitted(deps, turn))) return;
  const plan =
    value?.plan && typeof value.plan === 'object' && !Array.isArray(value.plan) ? (value.plan as Record<string, unknown>) : undefined;
  const activity = context.activity;
  // a welcome card's example question (welcome.ts EXAMPLE_VALUE): each person who clicks it is answered
  const example = (value as { example?: unknown } | undefined)?.example === true;
  const who = example ? `:${turn.userId ?? 'unknown'}` : '';
  await enqueueTurn(deps, context, `teams:click:${activity.replyToId ?? activity.id}${who}:followup:${text}`.slice(0, 500), {
    ...message,
    text: text.slice(0, 500),
    ...(plan ? { plan } : {}),
  });
}
