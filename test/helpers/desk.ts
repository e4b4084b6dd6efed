// A DataDesk on a test database, with in-process thread memory and an optional LLM.
import { DataDesk } from '../../src/agents/desk.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import type { LlmClient } from '../../src/llm/client.js';
import { ThreadMemory, createKeyv, type ThreadState } from '../../src/memory/thread-memory.js';
import type { TestDatabase } from './database.js';
import type { VerifiedStore } from '../../src/verified/verified-store.js';

export function testDesk(
  db: TestDatabase,
  options: {
    llm?: LlmClient;
    glossaryDefaults?: Record<string, string>;
    memoryUrl?: string;
    statementTimeoutMs?: number;
    answerDeadlineMs?: number;
    verified?: VerifiedStore;
    publicBaseUrl?: string;
  } = {},
) {
  const memory = new ThreadMemory(createKeyv<ThreadState>(options.memoryUrl ?? 'memory', 'thread'), 3_600_000);
  const logger = createMemoryLogger();
  const desk = new DataDesk({
    readPool: db.pool,
    writePool: db.pool,
    reader: db.reader?.pool,
    logger,
    memory,
    llm: options.llm,
    statementTimeoutMs: options.statementTimeoutMs ?? 10_000,
    answerDeadlineMs: options.answerDeadlineMs,
    displayRows: 20,
    glossaryDefaults: options.glossaryDefaults ?? {},
    verified: options.verified,
    publicBaseUrl: options.publicBaseUrl,
  });
  return { desk, memory, logger };
}
