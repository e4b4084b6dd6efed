// One deadline for everything the model does for a question (ANSWER_DEADLINE_MS):
// a slow service made one answer take 44 s. Past it, a call fails as the model
// being unavailable, so the agent answers what it can exactly without the model
// (the query plan, a verified query, the deterministic narrator) and says so.
// The deadline aborts the HTTP request itself (its socket is closed and the SDK
// retries no more): a race alone left it running, and `datadesk ask` waited
// for it long past the deadline.
import { LlmError, type LlmClient } from './client.js';

export function withDeadline(llm: LlmClient, deadlineMs: number): LlmClient {
  const deadlineAt = Date.now() + deadlineMs;
  const seconds = deadlineMs < 10_000 ? (deadlineMs / 1000).toFixed(1) : String(Math.round(deadlineMs / 1000));
  const late = () => new LlmError(`the language model did not answer within ${seconds} s`, true);
  const guard = <T>(work: (signal: AbortSignal) => Promise<T>, callerSignal?: AbortSignal): Promise<T> => {
    const left = deadlineAt - Date.now();
    if (left <= 0) return Promise.reject(late());
    const controller = new AbortController();
    const signal = callerSignal ? AbortSignal.any([controller.signal, callerSignal]) : controller.signal;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = late();
        controller.abort(error);
        reject(error);
      }, left);
    });
    return Promise.race([work(signal), timeout]).finally(() => clearTimeout(timer));
  };
  return {
    model: llm.model,
    chatText: (request) => guard((signal) => llm.chatText({ ...request, signal }), request.signal),
    chatJson: (request) => guard((signal) => llm.chatJson({ ...request, signal }), request.signal),
  };
}
