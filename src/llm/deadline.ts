// One deadline for everything the model does for a question (ANSWER_DEADLINE_MS):
// a slow service made one answer take 44 s. Past it, a call fails as the model
// being unavailable, so the agent answers what it can exactly without the model
// (the query plan, a verified query, the deterministic narrator) and says so.
import { LlmError, type LlmClient } from './client.js';

export function withDeadline(llm: LlmClient, deadlineMs: number): LlmClient {
  const deadlineAt = Date.now() + deadlineMs;
  const seconds = deadlineMs < 10_000 ? (deadlineMs / 1000).toFixed(1) : String(Math.round(deadlineMs / 1000));
  const late = () => new LlmError(`the language model did not answer within ${seconds} s`, true);
  const guard = <T>(work: () => Promise<T>): Promise<T> => {
    const left = deadlineAt - Date.now();
    if (left <= 0) return Promise.reject(late());
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), left);
    });
    return Promise.race([work(), timeout]).finally(() => clearTimeout(timer));
  };
  return {
    model: llm.model,
    chatText: (request) => guard(() => llm.chatText(request)),
    chatJson: (request) => guard(() => llm.chatJson(request)),
  };
}
