// The model client against a scripted OpenAI-compatible server over real HTTP:
// a reply larger than the cap is cut off before anything parses it, and the
// caller is told why; a reply of normal size goes through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLlmClient, LlmError } from '../../src/llm/client.js';
import { withDeadline } from '../../src/llm/deadline.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { waitFor } from '../helpers/wait.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => llm?.close());

describe('the LLM client', () => {
  it('refuses a reply over the byte cap without parsing it, and takes one under it', async () => {
    const client = createLlmClient({ baseUrl: llm.baseUrl, model: 'scripted', maxRetries: 0, maxReplyBytes: 64 * 1024 });
    const huge = JSON.stringify({ sql: `SELECT 1 AS x${' '.repeat(3_000_000)}` });
    llm.script.push({ content: huge });
    const refused = await client.chatJson({ system: 's', user: 'u', schema: z.object({ sql: z.string() }) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LlmError);
    expect((refused as LlmError).message).toBe("the LLM's reply was over 64 KB, more than a query or a narration needs");
    expect((refused as LlmError).retryable).toBe(false);
    llm.script.push({ content: JSON.stringify({ sql: 'SELECT 1' }) });
    expect((await client.chatJson({ system: 's', user: 'u', schema: z.object({ sql: z.string() }) })).value).toEqual({ sql: 'SELECT 1' });
  });
});

describe("a hostile model's invalid reply", () => {
  it('the model is told its exact problem; the error a person reads carries none of the keys or values it wrote', async () => {
    const client = createLlmClient({ baseUrl: llm.baseUrl, model: 'scripted', maxRetries: 0 });
    llm.requests.length = 0;
    const hostile = { ticker: '600519', '<!channel> <https://evil.example|verify>': 1, rules: { '<@U123> click': 'x' } };
    llm.script.push({ content: JSON.stringify(hostile) }, { content: JSON.stringify(hostile) });
    const schema = z.object({ ticker: z.string(), rules: z.record(z.enum(['entry', 'exit']), z.string()) }).strict();
    const failed = await client.chatJson({ system: 's', user: 'u', schema }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(LlmError);
    const message = (failed as LlmError).message;
    expect(message).toMatch(/^the LLM's answer was still invalid after a repair attempt: /);
    expect(message).toContain('Unrecognized key');
    for (const bad of ['<!channel>', 'evil.example', '<@U123>', 'click']) expect(message, bad).not.toContain(bad);
    // the repair request named the problem exactly
    expect(llm.requests[1].messages.at(-1)!.content).toContain('<!channel> <https://evil.example|verify>');
  });
});

describe('the deadline and the retries (issue 33)', () => {
  it('ends a call to a model that never answers at the deadline, and closes its connection', async () => {
    const client = withDeadline(createLlmClient({ baseUrl: llm.baseUrl, model: 'scripted', timeoutMs: 60_000 }), 1_500);
    llm.requests.length = 0;
    llm.abandoned = 0;
    llm.script.push({ hang: true });
    const started = Date.now();
    const late = await client.chatText({ system: 's', user: 'u' }).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(late).toBeInstanceOf(LlmError);
    expect((late as LlmError).message).toBe('the language model did not answer within 1.5 s');
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(2_500);
    // the request itself was aborted: the server sees its connection closed, and nothing is sent again
    await waitFor(
      () => (llm.abandoned === 1 ? true : undefined),
      () => `connections closed: ${llm.abandoned}`,
      3_000,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(llm.requests).toHaveLength(1);
  });

  it('asks once for a reply over the cap: a refused reply is not retried', async () => {
    const client = createLlmClient({ baseUrl: llm.baseUrl, model: 'scripted' }); // the SDK's default retries
    llm.requests.length = 0;
    llm.script.push({ content: 'x'.repeat(300 * 1024) }, { content: 'never asked for' });
    const refused = await client.chatText({ system: 's', user: 'u' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LlmError);
    expect((refused as LlmError).message).toBe("the LLM's reply was over 256 KB, more than a query or a narration needs");
    expect((refused as LlmError).retryable).toBe(false);
    expect(llm.requests).toHaveLength(1);
    llm.script.length = 0;
  });

  it('still retries a reply that failed for a reason worth retrying (HTTP 503), and reads a large body under the cap', async () => {
    const client = createLlmClient({ baseUrl: llm.baseUrl, model: 'scripted', maxRetries: 1 });
    llm.requests.length = 0;
    llm.script.push({ status: 503, headers: { 'retry-after-ms': '10' } }, { content: 'y'.repeat(200 * 1024) });
    expect((await client.chatText({ system: 's', user: 'u' })).text).toHaveLength(200 * 1024);
    expect(llm.requests).toHaveLength(2);
  });
});
