// Thumbs up or down on an answer, from any channel: stored with the question,
// its SQL and who said it (one verdict per person and answer; a second click
// changes it). A curator's thumbs-up on an answer with one query promotes the
// question and that SQL to a verified pair, used at once by every worker.
import type pg from 'pg';
import { UserError } from '../core/errors.js';
import type { Deliveries } from '../jobs/deliveries.js';
import type { VerifiedStore } from '../knowledge/verified-store.js';

export type Verdict = 'up' | 'down';

export interface FeedbackInput {
  deliveryKey: string;
  platform: string;
  userId: string;
  verdict: Verdict;
  /** a curator's thumbs-up teaches the bot (CURATORS; anyone in the playground) */
  curator: boolean;
}

export interface FeedbackOutcome {
  /** the pair id, when the answer became a verified pair */
  promoted?: string;
  /** what to tell the person, in a sentence */
  message: string;
}

export async function recordFeedback(pool: pg.Pool, deliveries: Deliveries, verified: VerifiedStore, input: FeedbackInput): Promise<FeedbackOutcome> {
  const delivery = await deliveries.get(input.deliveryKey);
  if (!delivery?.answer) throw new UserError('That answer is no longer kept (answers are kept for 3 days), so the feedback could not be stored.');
  const answer = delivery.answer;
  const sql = answer.kind === 'result' && answer.route === 'sql' && answer.sql.length === 1 ? answer.sql[0] : null;
  await pool.query(
    `INSERT INTO feedback (delivery_key, platform, user_id, verdict, question, sql) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (delivery_key, user_id) DO UPDATE SET verdict = excluded.verdict, created_at = now()`,
    [input.deliveryKey, input.platform, input.userId, input.verdict, delivery.question, sql],
  );
  if (input.verdict === 'down') return { message: 'Thanks: noted as a wrong or unhelpful answer. A curator will look at it (datadesk feedback).' };
  if (!input.curator || !sql || !delivery.question) return { message: 'Thanks: noted as a good answer.' };
  const promoted = await verified.add({ question: delivery.question, sql, source: 'feedback', addedBy: `${input.platform}:${input.userId}` });
  return { promoted, message: `Thanks: "${delivery.question}" is now a verified question (#${promoted}); asked again in these words, it is answered with this query.` };
}

export interface FeedbackRow {
  id: string;
  verdict: Verdict;
  platform: string;
  user_id: string;
  question: string | null;
  sql: string | null;
  created_at: Date;
}

/** The most recent thumbs-down first. */
export async function downVotes(pool: pg.Pool, limit = 50): Promise<FeedbackRow[]> {
  const { rows } = await pool.query<FeedbackRow>(
    `SELECT id::text, verdict, platform, user_id, question, sql, created_at FROM feedback WHERE verdict = 'down' ORDER BY created_at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}
