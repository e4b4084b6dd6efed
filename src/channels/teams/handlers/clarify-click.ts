// A clarification choice (Action.Submit data { term, option }): only the
// question waiting in this thread takes it, and only from who asked it.
import { enqueueTurn, type TeamsBotDeps, type TeamsTurn } from './turn.js';

export async function clarifyClick(deps: TeamsBotDeps, { context, value, userId, message }: TeamsTurn): Promise<void> {
  const pending = await deps.desk.pendingChoice(message.threadId);
  if (!value?.term || !value.option || !pending || pending.term !== value.term) {
    await context.sendActivity('That question was already answered or has expired. Ask it again to get fresh choices.');
    return;
  }
  if (pending.userId && pending.userId !== userId) {
    await context.sendActivity('Someone else asked this question; the choice is theirs. Ask your own question to get your own choices.');
    return;
  }
  const activity = context.activity;
  await enqueueTurn(
    deps,
    context,
    `teams:click:${activity.replyToId ?? activity.id}:${value.term}`,
    { ...message, text: `(choice ${value.term}=${value.option})` },
    {
      type: 'choose',
      term: value.term,
      option: value.option,
    },
  );
}
