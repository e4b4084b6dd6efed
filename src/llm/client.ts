// The LLM behind Data Desk: any OpenAI-compatible endpoint through the
// `openai` package. The SDK retries 429 and 5xx with backoff and honours
// Retry-After; on top we queue by a requests/tokens-per-minute budget, time
// out each call, validate structured output with zod (one repair attempt on
// invalid JSON) and report token usage for the trace.
import { createRequire } from 'node:module';
import type OpenAI from 'openai';
import type { z } from 'zod';
import { RateLimiter, type RateLimits } from './rate-limiter.js';
import { extractJson } from './extract-json.js';
import { cappedFetch, ReplyTooBigError } from './capped-fetch.js';
import { secretScrubber } from './secret-scrub.js';

export interface LlmSettings {
  baseUrl?: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
  maxRetries?: number;
  limits?: RateLimits;
  /** the most bytes one reply may have before it is parsed (default 256 KB) */
  maxReplyBytes?: number;
  /** values no reply may carry into the app (besides apiKey): database passwords, tokens (secret-scrub.ts) */
  secrets?: readonly (string | undefined)[];
}

interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

interface ChatRequest {
  system: string;
  user: string;
  /** ends the call: the HTTP request is aborted and its socket closed (the answer deadline) */
  signal?: AbortSignal;
}

export class LlmError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

export interface LlmClient {
  readonly model: string;
  chatText(request: ChatRequest): Promise<{ text: string; usage: LlmUsage }>;
  chatJson<T>(request: ChatRequest & { schema: z.ZodType<T> }): Promise<{ value: T; usage: LlmUsage }>;
}

/**
 * A validation issue as a person may read it: zod quotes what the model wrote (an unrecognized key, a record's
 * key in the path), so only plain names of our schema's fields are kept and every quoted part is left out.
 */
function shownIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p) => (typeof p === 'number' || /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(String(p)) ? String(p) : '…'));
  return `${path.join('.') || '(root)'}: ${issue.message.replace(/"(?:[^"\\]|\\.)*"/g, '…')}`;
}

/** Rough token estimate (4 characters a token) for reserving budget before a call. */
const estimateTokens = (text: string) => Math.ceil(text.length / 4) + 256;

// loaded when a client is made: a process with no model configured (`datadesk ask` offline) skips its ~60 ms
const loadOpenAi = (): typeof OpenAI => createRequire(import.meta.url)('openai') as typeof OpenAI;

export function createLlmClient(settings: LlmSettings): LlmClient {
  const OpenAiClient = loadOpenAi();
  const openai = new OpenAiClient({
    baseURL: settings.baseUrl,
    // local servers (vLLM, Ollama, llama.cpp) accept any key
    apiKey: settings.apiKey ?? 'no-key',
    maxRetries: settings.maxRetries ?? 3,
    timeout: settings.timeoutMs ?? 60_000,
    fetch: cappedFetch(settings.maxReplyBytes ?? 262_144),
  });
  const limiter = new RateLimiter(settings.limits ?? { requestsPerMinute: 60, tokensPerMinute: 200_000 });
  // the endpoint sees the key in every request: a hostile one may send it back
  const scrub = secretScrubber([settings.apiKey, ...(settings.secrets ?? [])]);

  async function complete(messages: OpenAI.ChatCompletionMessageParam[], json: boolean, signal?: AbortSignal) {
    const record = await limiter.acquire(estimateTokens(messages.map((m) => String(m.content)).join('\n')));
    try {
      signal?.throwIfAborted();
      const response = await openai.chat.completions.create(
        {
          model: settings.model,
          messages,
          temperature: 0,
          ...(json ? { response_format: { type: 'json_object' as const } } : {}),
        },
        // the signal aborts the request in flight and any retry of it
        signal ? { signal } : undefined,
      );
      // a proxy's HTML page or a truncated body is no chat completion: say so, not "something went wrong"
      if (!response || !Array.isArray((response as { choices?: unknown }).choices)) {
        throw new LlmError('the LLM service sent a reply that is not a chat completion (a proxy or error page?)', true);
      }
      const usage = {
        promptTokens: response.usage?.prompt_tokens ?? 0,
        completionTokens: response.usage?.completion_tokens ?? 0,
      };
      record(usage.promptTokens + usage.completionTokens);
      return { text: scrub(response.choices[0]?.message?.content ?? ''), usage };
    } catch (error) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new LlmError('the call to the LLM was cancelled', true);
      if (error instanceof ReplyTooBigError || (error as { cause?: unknown }).cause instanceof ReplyTooBigError) {
        throw new LlmError(error instanceof ReplyTooBigError ? error.message : (error as { cause: Error }).cause.message, false);
      }
      if (error instanceof OpenAiClient.APIError) {
        const status = error.status;
        throw new LlmError(
          status
            ? `the LLM service answered HTTP ${status}${status === 401 ? ' (check LLM_API_KEY)' : ''}`
            : 'the LLM service could not be reached',
          status === undefined || status === 429 || status >= 500,
        );
      }
      if (error instanceof SyntaxError) throw new LlmError(`the LLM service sent a malformed reply (${error.message})`, true);
      throw error;
    }
  }

  return {
    model: settings.model,
    async chatText({ system, user, signal }) {
      return complete(
        [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        false,
        signal,
      );
    },
    async chatJson({ system, user, schema, signal }) {
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ];
      const first = await complete(messages, true, signal);
      const usage = { ...first.usage };
      const attempt = (text: string) => {
        try {
          const parsed = schema.safeParse(extractJson(text));
          return parsed.success
            ? { value: parsed.data }
            : {
                problem: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '),
                shown: parsed.error.issues.map(shownIssue).join('; '),
              };
        } catch (error) {
          return { problem: `not valid JSON (${(error as Error).message})` };
        }
      };
      const firstTry = attempt(first.text);
      if ('value' in firstTry) return { value: firstTry.value as never, usage };
      // one repair round with the exact problem
      messages.push({ role: 'assistant', content: first.text });
      messages.push({
        role: 'user',
        content: `That reply was invalid: ${firstTry.problem}. Answer again with the corrected JSON object only.`,
      });
      const second = await complete(messages, true, signal);
      usage.promptTokens += second.usage.promptTokens;
      usage.completionTokens += second.usage.completionTokens;
      const secondTry = attempt(second.text);
      if ('value' in secondTry) return { value: secondTry.value as never, usage };
      // the model is told its exact problem; a person is told ours, without the keys and values the model wrote
      throw new LlmError(`the LLM's answer was still invalid after a repair attempt: ${secondTry.shown ?? secondTry.problem}`, true);
    },
  };
}
