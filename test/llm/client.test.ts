// The model client against a scripted OpenAI-compatible server over real HTTP:
// a reply larger than the cap is cut off before anything parses it, and the
// caller is told why; a reply of normal size goes through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLlmClient, LlmError } from '../../src/llm/client.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

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
