// One row per question in audit_log: who asked where, the route, the SQL, the
// outcome, time per node and tokens. Never the result rows. A failure to write
// the audit row is logged and does not fail the answer.
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import type { Logger } from '../core/logger.js';

export interface AuditEntry {
  platform: string;
  channel?: string;
  userId?: string;
  thread?: string;
  question: string;
  answer: Answer;
  sql?: string;
  rowCount?: number;
  tokens: number;
}

export async function recordQuestion(pool: pg.Pool, entry: AuditEntry, logger: Logger): Promise<void> {
  const nodeMs: Record<string, number> = {};
  for (const step of entry.answer.trace) nodeMs[step.node] = Math.round(((nodeMs[step.node] ?? 0) + step.ms) * 100) / 100;
  const status =
    entry.answer.kind === 'result'
      ? 'answered'
      : entry.answer.kind === 'clarify'
        ? 'clarify'
        : entry.answer.kind === 'refusal'
          ? 'rejected'
          : 'error';
  try {
    await pool.query(
      `INSERT INTO audit_log (platform, channel, user_id, thread, question, route, status, sql, row_count, node_ms, tokens)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        entry.platform,
        entry.channel ?? null,
        entry.userId ?? null,
        entry.thread ?? null,
        entry.question,
        entry.answer.route,
        status,
        entry.sql ?? null,
        entry.rowCount ?? null,
        JSON.stringify(nodeMs),
        entry.tokens,
      ],
    );
  } catch (error) {
    logger.warn(`audit log: ${(error as Error).message}`);
  }
}
