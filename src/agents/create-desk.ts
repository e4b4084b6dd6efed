// Wires a DataDesk from the configuration and an open database.
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/database.js';
import { llmFromConfig } from '../llm/from-config.js';
import { ThreadMemory, createKeyv, type ThreadState } from '../memory/thread-memory.js';
import { DataDesk } from './desk.js';
import { VerifiedStore } from '../verified/verified-store.js';

export function createDesk(config: Config, db: Database, logger: Logger): { desk: DataDesk; memory: ThreadMemory } {
  const memory = new ThreadMemory(
    createKeyv<ThreadState>(config.threadMemoryUrl ?? db.write, 'thread'),
    config.threadMemoryTtlHours * 3_600_000,
  );
  const desk = new DataDesk({
    readPool: db.read,
    writePool: db.write,
    reader: db.reader,
    readerProblem: db.readerProblem,
    maxResultBytes: config.reader.maxResultBytes,
    logger,
    memory,
    llm: llmFromConfig(config),
    answerDeadlineMs: config.answerDeadlineMs,
    statementTimeoutMs: config.statementTimeoutMs,
    displayRows: config.sqlDisplayRows,
    glossaryDefaults: config.glossaryDefaults,
    verified: new VerifiedStore(db.write),
    publicBaseUrl: config.publicBaseUrl,
  });
  return { desk, memory };
}
