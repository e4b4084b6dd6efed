import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeLlm, loadConfig } from '../../src/config/env.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toBeUndefined();
    expect(c.port).toBe(3000);
    expect(c.home).toBe('.datadesk');
    expect(c.llm).toBeUndefined();
    // the portal sync is off on the synthetic demo database
    expect(c.socrata.schedule).toBeUndefined();
  });

  it('schedules the portal sync weekly when a real database is configured', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x' });
    expect(c.socrata.schedule).toBe('0 4 * * 1');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/x', SOCRATA_SCHEDULE: 'off' }).socrata.schedule).toBeUndefined();
  });

  it('names the variable and what is expected', () => {
    expect(problems({ PORT: 'eighty' })).toEqual(['PORT: expected a whole number from 0 to 65535']);
    expect(problems({ DATABASE_URL: 'mysql://x' })[0]).toMatch(/^DATABASE_URL: expected a PostgreSQL URL/);
    expect(problems({ LOG_LEVEL: 'loud' })[0]).toMatch(/^LOG_LEVEL: expected debug, info, warn or error/);
    expect(problems({ SOCRATA_SCHEDULE: 'every monday' })[0]).toMatch(/^SOCRATA_SCHEDULE: expected a cron expression/);
    expect(problems({ SCHEDULE_TIMEZONE: 'Mars/Olympus' })[0]).toMatch(/^SCHEDULE_TIMEZONE: expected an IANA time zone/);
    expect(problems({ LLM_API_KEY: 'sk-1' })).toEqual(['LLM_MODEL: required when LLM_BASE_URL or LLM_API_KEY is set (e.g. gpt-4o-mini)']);
    expect(problems({ READ_DATABASE_URL: 'postgres://r@replica/x' })[0]).toMatch(/^READ_DATABASE_URL: needs DATABASE_URL/);
  });

  it('never prints the LLM key', () => {
    const c = loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:8000/v1', LLM_API_KEY: 'sk-secret-123', LLM_MODEL: 'm' });
    expect(describeLlm(c)).toBe('LLM: m at http://127.0.0.1:8000/v1 (key set)');
    expect(describeLlm(loadConfig({}))).toMatch(/^LLM: none configured/);
  });
});

describe('.env.example', () => {
  it('documents every variable the app reads (README: "Every variable is documented in .env.example")', () => {
    const source = readFileSync(new URL('../../src/config/env.ts', import.meta.url), 'utf8');
    const read = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
    const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    expect(read.length).toBeGreaterThan(40);
    expect(read.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example))).toEqual([]);
  });
});
