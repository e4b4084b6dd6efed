// The configured LLM, or none: the bot still works on what it can do exactly.
import type { Config } from '../config/env.js';
import { createLlmClient, type LlmClient } from './client.js';

export function llmFromConfig(config: Config): LlmClient | undefined {
  if (!config.llm) return undefined;
  return createLlmClient({ baseUrl: config.llm.baseUrl, apiKey: config.llm.apiKey, model: config.llm.model });
}
