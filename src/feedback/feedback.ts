// Thumbs up or down on an answer, from any channel: stored with the resolved
// question (what the answer answered, in full words: never a fragment such as
// "only arrests"), the words typed, its SQL and who said it (one verdict per
// person and answer; a second click changes it). A curator's thumbs-up on a
// plan answer vouches for the plan (any wording that resolves to it is then
// verified); on a free-SQL answer, for that SQL with its resolved question.
// A thumbs-up never replaces an existing pair, and never makes one for every
// workspace: the pair answers only where the answer was given (its workspace,
// or the playground's own scope: knowledge/scope.ts).
import type pg from 'pg';
import { UserError } from '../core/errors.js';
import type { Deliveries } from '../jobs/deliveries.js';
import type { VerifiedStore } from '../verified/verified-store.js';
import { answersFromData, checkSql } from '../db/sql-guard.js';
import { isCurator } from './curators.js';
import { scopeOf } from '../knowledge/scope.js';

export type Verdict = 'up' | 'down';

export interface FeedbackInput {
  deliveryKey: string;
  platform: string;
  userId: string;
  verdict: Verdict;
  /** the workspace the click came from: only an answer given there takes it (see feedback/curators.ts for who is a curator) */
  workspace?: string;
  /** a curator's thumbs-up teaches the bot (CURATORS; anyone in the playground) */
  curator: boolean;
}

export interface FeedbackOutcome {
  /** the pair id, when the answer became a verified pair */
  promoted?: string;
  /** the same person gave this verdict on this answer before (a platform's retry of the same event): nothing to say again */
  repeated?: boolean;
  /** what to tell the person, in a sentence */
  message: string;
}

export async function recordFeedback(
  pool: pg.Pool,
  deliveries: Deliveries,
  verified: VerifiedStore,
  input: FeedbackInput,
): Promise<FeedbackOutcome> {
  const delivery = await deliveries.get(input.deliveryKey);
  if (!delivery?.answer)
    throw new UserError('That answer is no longer kept (answers are kept for 3 days), so the feedback could not be stored.');
  // a key from another workspace (a forged card value, a shared channel) is not this person's to judge
  if ((delivery.workspace ?? undefined) !== input.workspace)
    throw new UserError('That answer was given in another workspace; feedback on it is theirs.');
  // where a pair made from it answers: the answer's workspace, or its platform's scope (the playground's own)
  const workspace = scopeOf(delivery.platform, delivery.workspace);
  const answer = delivery.answer;
  const resolved = answer.kind === 'result' ? answer.resolved : undefined;
  // a pair keeps the query over crimes as written (each asking moves it onto whichever rollup holds it then)
  const sql = answer.kind === 'result' && answer.route === 'sql' && answer.sql.length === 1 ? (resolved?.sql ?? answer.sql[0]) : null;
  const question = resolved?.question ?? (answer.kind === 'result' && answer.route === 'sql' ? null : delivery.question);
  // the verdict before this one (the CTE reads the table as it was): the same again is a retry, said nothing to
  const {
    rows: [stored],
  } = await pool.query<{ before: Verdict | null }>(
    `WITH prior AS (SELECT verdict FROM feedback WHERE delivery_key = $1 AND user_id = $3)
     INSERT INTO feedback (delivery_key, platform, user_id, verdict, question, asked, sql, plan, workspace) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (delivery_key, user_id) DO UPDATE SET verdict = excluded.verdict,
       created_at = CASE WHEN feedback.verdict = excluded.verdict THEN feedback.created_at ELSE now() END
     RETURNING (SELECT verdict FROM prior) AS before`,
    [
      input.deliveryKey,
      input.platform,
      input.userId,
      input.verdict,
      question,
      delivery.question,
      sql,
      resolved?.plan ? JSON.stringify(resolved.plan) : null,
      delivery.workspace ?? null,
    ],
  );
  if (stored?.before === input.verdict) return { repeated: true, message: 'Thanks: that verdict was noted already.' };
  if (input.verdict === 'down')
    return { message: 'Thanks: noted as a wrong or unhelpful answer. A curator will look at it (datadesk feedback).' };
  // no scope (the terminal): a pair for every workspace is an operator's (datadesk verified add), never a 👍's
  if (!input.curator || !sql || !workspace) return { message: 'Thanks: noted as a good answer.' };
  if (!resolved) {
    return {
      message:
        'Thanks: noted as a good answer. It answered a follow-up whose full question is not known, so it was not made a verified question: ask it as one whole question and 👍 that answer.',
    };
  }
  const addedBy = `${input.platform}:${input.userId}`;
  let outcome;
  if (resolved.plan && resolved.planKey) {
    outcome = await verified.add({
      question: resolved.question,
      sql,
      source: 'feedback',
      addedBy,
      workspace,
      plan: { key: resolved.planKey, plan: resolved.plan, choices: {} },
    });
  } else {
    // model-written SQL must answer from the data: a constant (SELECT 41, or SELECT 41 FROM crimes) answers nothing
    const verdict = await checkSql(sql);
    if (!verdict.ok || !verdict.tables.length || !(await answersFromData(verdict.statement))) {
      return {
        message:
          'Thanks: noted as a good answer. Its query does not answer from the data (a constant), so it was not made a verified question.',
      };
    }
    outcome = await verified.add({ question: resolved.question, sql, source: 'feedback', addedBy, workspace });
  }
  if (!outcome.added) {
    return {
      message: `Thanks: noted as a good answer. "${resolved.question}" is verified already (#${outcome.id}); the pair is kept as it is (an operator changes pairs with datadesk verified).`,
    };
  }
  const how = resolved.plan
    ? 'asked in any words that mean the same, it is answered as verified'
    : 'asked again in these words, it is answered with this query';
  return { promoted: outcome.id, message: `Thanks: "${resolved.question}" is now a verified question (#${outcome.id}); ${how}.` };
}

export interface FeedbackRow {
  id: string;
  verdict: Verdict;
  platform: string;
  user_id: string;
  /** the resolved question (what was answered, in full words) */
  question: string | null;
  /** the words typed */
  asked: string | null;
  sql: string | null;
  /** what was wrong, in the words of the person who gave the 👎 (Slack's reason box), when they said */
  reason: string | null;
  created_at: Date;
}

/** The most recent thumbs-down first. */
export async function downVotes(pool: pg.Pool, limit = 50): Promise<FeedbackRow[]> {
  const { rows } = await pool.query<FeedbackRow>(
    `SELECT id::text, verdict, platform, user_id, question, asked, sql, reason, created_at FROM feedback WHERE verdict = 'down' ORDER BY created_at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

/** What keeping a chat platform's 👍/👎 needs: where feedback goes, and who the curators are. */
export interface FeedbackKeeper {
  pool: pg.Pool;
  deliveries: Deliveries;
  verified: VerifiedStore;
  /** CURATORS: a curator's 👍 makes the question verified */
  curators: string[];
}

/** A person's verdict on an answer from a chat platform (a reaction, a button, a card): kept, the curator rule applied. */
export function keepVerdict(keeper: FeedbackKeeper, input: Omit<FeedbackInput, 'curator'>): Promise<FeedbackOutcome> {
  return recordFeedback(keeper.pool, keeper.deliveries, keeper.verified, {
    ...input,
    curator: isCurator(keeper.curators, input.workspace, input.userId),
  });
}

/**
 * A person takes a verdict back (Slack's reaction_removed): their verdict on that answer is deleted, if it is
 * still that one (a 👍 taken back after a 👎 leaves the 👎). A pair a curator's 👍 made stays (datadesk verified
 * remove). True when a verdict was deleted.
 */
export async function withdrawFeedback(
  pool: pg.Pool,
  input: { deliveryKey: string; platform: string; userId: string; verdict: Verdict },
): Promise<boolean> {
  const { rowCount } = await pool.query(
    'DELETE FROM feedback WHERE delivery_key = $1 AND platform = $2 AND user_id = $3 AND verdict = $4',
    [input.deliveryKey, input.platform, input.userId, input.verdict],
  );
  return (rowCount ?? 0) > 0;
}

/** The longest reason kept with a 👎 (the column's check; Slack's box is held to it too). */
export const REASON_LIMIT = 3_000;

/**
 * What was wrong with an answer, said after the 👎 (Slack's reason box): kept with that person's 👎 on it. False
 * when there is no such 👎 any more (taken back meanwhile): the reason is not kept without its verdict.
 */
export async function keepReason(
  pool: pg.Pool,
  input: { deliveryKey: string; platform: string; userId: string; reason: string },
): Promise<boolean> {
  const reason = input.reason.trim().slice(0, REASON_LIMIT);
  const { rowCount } = await pool.query(
    `UPDATE feedback SET reason = $4 WHERE delivery_key = $1 AND platform = $2 AND user_id = $3 AND verdict = 'down'`,
    [input.deliveryKey, input.platform, input.userId, reason || null],
  );
  return (rowCount ?? 0) > 0;
}
