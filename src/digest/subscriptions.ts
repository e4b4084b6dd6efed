// Digest subscriptions in PostgreSQL, and the words that manage them from a
// channel: `digest weekly monday 09:00 America/Chicago [topic]`, `digest list`,
// `digest off ID`. The topic decides the digest: none (or "crime") -> the
// crime digest; "accuracy" -> the multi-turn benchmark's score; a rule line
// with "buy:" -> a backtest watch; anything else -> a saved question re-asked
// each period.
import type pg from 'pg';
import type { ChatPlatform } from '../core/platform.js';
import { UserError } from '../core/errors.js';
import { looksLikeRuleSyntax } from '../backtest/rule-syntax.js';
import { parseSchedule } from './schedule.js';

type DigestKind = 'crime' | 'question' | 'backtest' | 'accuracy';

export interface Subscription {
  id: number;
  platform: ChatPlatform;
  /** the Slack workspace or Teams tenant the channel is in (null: a single-workspace install from before) */
  workspace: string | null;
  /** the enterprise of an org-wide Slack install */
  enterprise_id: string | null;
  channel: string;
  created_by: string | null;
  cron: string;
  timezone: string;
  kind: DigestKind;
  topic: string | null;
  enabled: boolean;
  last_state: Record<string, unknown> | null;
  created_at: Date;
}

function kindOf(topic: string): DigestKind {
  const t = topic.trim();
  if (!t || /^crimes?$/i.test(t)) return 'crime';
  if (/^(accuracy|benchmark|score)$/i.test(t)) return 'accuracy';
  return looksLikeRuleSyntax(t) ? 'backtest' : 'question';
}

export async function enabledSubscriptions(pool: pg.Pool): Promise<Subscription[]> {
  return (await pool.query<Subscription>('SELECT * FROM digest_subscriptions WHERE enabled ORDER BY id')).rows;
}

/** The digests a workspace has on, in any of its channels (the App Home lists them). */
export async function workspaceSubscriptions(
  pool: pg.Pool,
  platform: ChatPlatform,
  workspace: string | undefined,
): Promise<Subscription[]> {
  return (
    await pool.query<Subscription>(
      `SELECT * FROM digest_subscriptions WHERE enabled AND platform = $1 AND coalesce(workspace, '') = coalesce($2, '') ORDER BY id`,
      [platform, workspace ?? null],
    )
  ).rows;
}

export async function disableSubscription(pool: pg.Pool, id: number, reason: string): Promise<void> {
  await pool.query('UPDATE digest_subscriptions SET enabled = false, disabled_reason = $2 WHERE id = $1', [id, reason]);
}

/**
 * Stops the digests of a workspace that removed the app (or, for an org-wide install, of every workspace of its
 * enterprise); returns how many. Nothing is deleted: a reinstall can turn them on again.
 */
export async function disableWorkspaceDigests(
  pool: pg.Pool,
  platform: Subscription['platform'],
  where: { workspace?: string; enterprise?: string },
  reason: string,
): Promise<number> {
  if (!where.workspace && !where.enterprise) return 0;
  const { rowCount } = await pool.query(
    `UPDATE digest_subscriptions SET enabled = false, disabled_reason = $4
     WHERE enabled AND platform = $1 AND (workspace = $2 OR ($2 IS NULL AND enterprise_id = $3))`,
    [platform, where.workspace ?? null, where.enterprise ?? null, reason],
  );
  return rowCount ?? 0;
}

export interface CommandContext {
  platform: Subscription['platform'];
  /** the workspace the channel is in: its digests are listed, turned off and posted with its own token */
  workspace?: string;
  enterprise?: string;
  channel: string;
  userId?: string;
  defaultTimezone: string;
}

const WHAT: Record<DigestKind, (topic: string | null) => string> = {
  crime: () => 'crime digest',
  accuracy: () => 'accuracy digest (the multi-turn benchmark)',
  question: (t) => `question "${t}"`,
  backtest: (t) => `backtest watch "${t}"`,
};

const describe = (s: Subscription) => `#${s.id}: ${WHAT[s.kind](s.topic)}, cron "${s.cron}" (${s.timezone})`;

/** Runs a `digest ...` command; returns the reply. Bad input throws UserError and stores nothing. */
export async function digestCommand(pool: pg.Pool, text: string, ctx: CommandContext): Promise<string> {
  const words = text.trim().replace(/^digests?\s*/i, '');
  const [verb, ...rest] = words.split(/\s+/);
  if (!verb || /^help$/i.test(verb)) {
    return 'Digests post a summary here on a schedule. `digest weekly monday 09:00 America/Chicago` (the crime digest), `digest daily 08:00 How many thefts were reported in 2019?` (a saved question), `digest weekly friday 17:00 600519 buy: RSI(14) < 30 sell: RSI(14) > 70` (a backtest watch), `digest list`, `digest off ID`. Cron works too: `digest cron 0 9 * * 1-5 UTC`.';
  }
  if (/^list$/i.test(verb)) {
    const { rows } = await pool.query<Subscription>(
      `SELECT * FROM digest_subscriptions WHERE platform = $1 AND channel = $2 AND coalesce(workspace, '') = coalesce($3, '') AND enabled ORDER BY id`,
      [ctx.platform, ctx.channel, ctx.workspace ?? null],
    );
    return rows.length ? `Digests in this channel:\n${rows.map(describe).join('\n')}` : 'No digests in this channel yet.';
  }
  if (/^(off|stop|delete|remove)$/i.test(verb)) {
    const id = Number((rest[0] ?? '').replace(/^#/, ''));
    if (!Number.isInteger(id) || id <= 0) throw new UserError('Which digest? `digest off ID`, with an ID from `digest list`.');
    const { rowCount } = await pool.query(
      `UPDATE digest_subscriptions SET enabled = false, disabled_reason = 'turned off'
       WHERE id = $1 AND platform = $2 AND channel = $3 AND coalesce(workspace, '') = coalesce($4, '') AND enabled`,
      [id, ctx.platform, ctx.channel, ctx.workspace ?? null],
    );
    if (!rowCount) throw new UserError(`There is no digest #${id} in this channel (see \`digest list\`).`);
    return `Digest #${id} is off.`;
  }
  const schedule = parseSchedule(words, ctx.defaultTimezone);
  const kind = kindOf(schedule.topic);
  const topic = kind === 'crime' || kind === 'accuracy' ? null : schedule.topic;
  // the same digest twice (a replayed command, a double submit) is one subscription: the unique index says so
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO digest_subscriptions (platform, channel, created_by, cron, timezone, kind, topic, workspace, enterprise_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (platform, coalesce(workspace, ''), channel, cron, timezone, kind, coalesce(topic, '')) WHERE enabled DO NOTHING RETURNING id`,
    [
      ctx.platform,
      ctx.channel,
      ctx.userId ?? null,
      schedule.cron,
      schedule.timezone,
      kind,
      topic,
      ctx.workspace ?? null,
      ctx.enterprise ?? null,
    ],
  );
  const what =
    kind === 'crime'
      ? 'the crime digest'
      : kind === 'accuracy'
        ? "the accuracy digest (the multi-turn benchmark's score)"
        : kind === 'question'
          ? `"${schedule.topic}"`
          : `a backtest watch of \`${schedule.topic}\``;
  if (!rows[0]) {
    const { rows: existing } = await pool.query<{ id: number }>(
      `SELECT id FROM digest_subscriptions WHERE enabled AND platform = $1 AND channel = $2 AND cron = $3 AND timezone = $4 AND kind = $5
         AND coalesce(topic, '') = coalesce($6, '') AND coalesce(workspace, '') = coalesce($7, '')`,
      [ctx.platform, ctx.channel, schedule.cron, schedule.timezone, kind, topic, ctx.workspace ?? null],
    );
    return `Digest #${existing[0]?.id ?? '?'} already posts ${what} here, ${schedule.label}: nothing was added.`;
  }
  return `Digest #${rows[0].id}: ${what}, ${schedule.label}. Turn it off with \`digest off ${rows[0].id}\`.`;
}
