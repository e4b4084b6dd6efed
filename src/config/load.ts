// Reads .env (when present) into process.env without overriding what the
// environment already says, then validates. Node's own loader does the parsing.
import { existsSync } from 'node:fs';
import { loadConfig, type Config } from './env.js';

export function loadConfigFromProcess(envFile = '.env'): Config {
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  return loadConfig(process.env);
}
