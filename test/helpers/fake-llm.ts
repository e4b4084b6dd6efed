// A scripted OpenAI-compatible server over real HTTP: each POST to
// /v1/chat/completions takes the next scripted reply (a message, or an HTTP
// error with headers) and the request bodies are recorded for assertions.
import http from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createLlmClient, type LlmClient } from '../../src/llm/client.js';

export type ScriptedReply =
  | { content: string; promptTokens?: number; completionTokens?: number; delayMs?: number }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** a body sent as it is (an HTML error page from a proxy, a truncated JSON) */
  | { raw: string; contentType: string }
  /** a model that never answers: the request is held open until the client goes away */
  | { hang: true };

export interface FakeLlm {
  baseUrl: string;
  script: ScriptedReply[];
  requests: { messages: { role: string; content: string }[]; model: string; response_format?: unknown }[];
  /** how many requests were closed by the client before they were answered */
  abandoned: number;
  /** answers a request when the script is empty (a model played by code: the "perfect model" suite) */
  respond?: (request: FakeLlm['requests'][number]) => ScriptedReply;
  close(): Promise<void>;
}

export async function startFakeLlm(script: ScriptedReply[] = []): Promise<FakeLlm> {
  const fake: FakeLlm = { baseUrl: '', script, requests: [], abandoned: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as FakeLlm['requests'][number];
      fake.requests.push(request);
      const reply = fake.script.shift() ?? fake.respond?.(request);
      if (!reply) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'script exhausted' } }));
        return;
      }
      if ('hang' in reply) {
        res.on('close', () => fake.abandoned++);
        return;
      }
      if ('raw' in reply) {
        res.writeHead(200, { 'content-type': reply.contentType }).end(reply.raw);
        return;
      }
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.body ?? { error: { message: `scripted ${reply.status}` } }));
        return;
      }
      const send = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-${fake.requests.length}`,
            object: 'chat.completion',
            created: 0,
            model: 'fake',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply.content } }],
            usage: {
              prompt_tokens: reply.promptTokens ?? 100,
              completion_tokens: reply.completionTokens ?? 20,
              total_tokens: (reply.promptTokens ?? 100) + (reply.completionTokens ?? 20),
            },
          }),
        );
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return fake;
}

/**
 * A scripted model for a whole test file: started before its tests, its script and recorded requests
 * cleared before each, closed after. `const model = useFakeLlm()`, then `model.llm` inside the tests.
 */
export function useFakeLlm(): { llm: FakeLlm } {
  const holder = {} as { llm: FakeLlm };
  beforeAll(async () => {
    holder.llm = await startFakeLlm();
  });
  beforeEach(() => {
    holder.llm.requests.length = 0;
    holder.llm.script.length = 0;
    holder.llm.abandoned = 0;
  });
  afterAll(async () => {
    await holder.llm?.close();
  });
  return holder;
}

/**
 * The client the desk uses, pointed at a scripted model. A scripted model has no rate limit of its own: the
 * client's default token budget (200,000 a minute) would make a test file wait, so the limits are lifted.
 */
export function scriptedClient(llm: FakeLlm, { model, maxRetries }: { model: string; maxRetries: number }): LlmClient {
  return createLlmClient({
    baseUrl: llm.baseUrl,
    apiKey: 'k',
    model,
    maxRetries,
    limits: { requestsPerMinute: 100_000, tokensPerMinute: 100_000_000 },
  });
}
