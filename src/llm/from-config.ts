// The configured LLM, or none: the bot still works on what it can do exactly.
import type { Config } from '../config/env.js';
import { createLlmClient, type LlmClient } from './client.js';
import { urlPassword } from './secret-scrub.js';

/** The configured secrets a model's reply must never carry into an answer or a log (the API key is the client's own). */
function configuredSecrets(config: Config): (string | undefined)[] {
  return [
    urlPassword(config.databaseUrl),
    urlPassword(config.readDatabaseUrl),
    urlPassword(config.threadMemoryUrl),
    config.slack?.botToken,
    config.slack?.signingSecret,
    config.slack?.appToken,
    config.slack?.oauth?.clientSecret,
    config.slack?.oauth?.tokenKeys,
    config.teams?.appPassword,
    config.socrata.appToken,
    config.playground.token,
  ];
}

export function llmFromConfig(config: Config): LlmClient | undefined {
  if (!config.llm) return undefined;
  return createLlmClient({
    baseUrl: config.llm.baseUrl,
    apiKey: config.llm.apiKey,
    model: config.llm.model,
    secrets: configuredSecrets(config),
  });
}
