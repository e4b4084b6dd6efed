// What every Teams handler gets: the turn as the neutral code knows it (who,
// which workspace and thread, the card value of a click), the gate for
// questions, and the one way to queue a question: the receive sequence
// (inbox.ts) showing typing and "on it" (or its place in line), which the
// worker replaces.
import { ActivityTypes, TurnContext } from 'botbuilder';
import type pg from 'pg';
import type { DataDesk, InboundMessage } from '../../../agents/desk.js';
import type { Logger } from '../../../core/logger.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/errors.js';
import type { AnswerJob } from '../../../jobs/answer-job.js';
import type { Deliveries } from '../../../jobs/deliveries.js';
import type { AnswerQueue } from '../../../jobs/queue.js';
import type { VerifiedStore } from '../../../verified/verified-store.js';
import { admit, receive, type Gate } from '../../inbox.js';
import { ON_IT, teamsPlaceholder, type TeamsReplyTarget } from '../teams-outbox.js';
import { streamPlaceholder, streamsIn } from '../teams-stream.js';

export interface TeamsBotDeps {
  /** asked only which clarification a conversation waits for */
  desk: Pick<DataDesk, 'pendingChoice'>;
  queue: AnswerQueue;
  deliveries: Deliveries;
  pool: pg.Pool;
  logger: Logger;
  /** the tenant allow-list (TEAMS_ALLOWED_TENANTS) and the rate limits, per tenant */
  gate: Gate;
  /** time zone of digest schedules that name none */
  defaultTimezone: string;
  /** where 👍/👎 on answer cards are kept, and whose 👍 makes a question verified */
  feedback?: { verified: VerifiedStore; curators: string[] };
}

/** What the card buttons send back (Action.Submit data in `value`): a clarification choice, feedback or a follow-up. */
interface CardValue {
  datadesk?: string;
  term?: string;
  option?: string;
  key?: string;
  verdict?: string;
  /** a suggested follow-up's question, and the plan it asks */
  text?: string;
  plan?: unknown;
  /** a Re-run's value: the plan and the answer's numbers then (core/rerun.ts) */
  rerun?: string;
}

export interface TeamsTurn {
  context: TurnContext;
  userId?: string;
  /** the tenant */
  workspace?: string;
  /** the message as the desk reads it, without its text */
  message: Omit<InboundMessage, 'text'>;
  value?: CardValue;
}

/** The tenant (organization) an activity came from: Teams' workspace. */
function tenantOf(activity: TurnContext['activity']): string | undefined {
  return activity.conversation?.tenantId ?? (activity.channelData as { tenant?: { id?: string } } | undefined)?.tenant?.id ?? undefined;
}

export function turnOf(context: TurnContext): TeamsTurn {
  const activity = context.activity;
  const userId = activity.from?.aadObjectId ?? activity.from?.id;
  const workspace = tenantOf(activity);
  const threadId = workspace ? `teams:${workspace}:${activity.conversation.id}` : `teams:${activity.conversation.id}`;
  return {
    context,
    userId,
    workspace,
    value: activity.value as CardValue | undefined,
    message: { platform: 'teams', threadId, channel: activity.conversation.id, workspace, userId },
  };
}

/** A question (typed, or a follow-up click) or a digest command passes the allow-lists and rate limits; false: the person was told why not. */
export async function admitted(deps: Pick<TeamsBotDeps, 'gate'>, turn: TeamsTurn): Promise<boolean> {
  const verdict = admit(deps.gate, {
    workspace: turn.workspace,
    channel: turn.context.activity.conversation.id,
    userId: turn.userId ?? 'unknown',
    // a card's button costs as a fragment, a typed turn by its length (turnCost)
    ...(turn.value ? { click: true } : { text: turn.context.activity.text ?? '' }),
  });
  if (!verdict.go && verdict.tellUser) await turn.context.sendActivity(verdict.tellUser);
  return verdict.go;
}

/** Where the receiver keeps, for the turn, the address Teams reached it at (teams-adapter.ts sets it). */
export const REACHED_AT = Symbol('datadesk.reachedAt');

/**
 * Queues the question and shows it: typing, then "on it" (or its place in line), which the worker replaces. False
 * when it was not queued: asked before under this key, or the database is down (the person was told).
 */
export async function enqueueTurn(
  deps: TeamsBotDeps,
  context: TurnContext,
  key: string,
  message: InboundMessage,
  action: AnswerJob['action'] = { type: 'answer' },
): Promise<boolean> {
  const reference = TurnContext.getConversationReference(context.activity) as Record<string, unknown>;
  const reachedAt = context.turnState.get(REACHED_AT) as string | undefined;
  const reply: TeamsReplyTarget = {
    platform: 'teams',
    conversationId: context.activity.conversation.id,
    reference,
    ...(reachedAt ? { reachedAt } : {}),
  };
  // a personal chat streams its answer (teams-stream.ts): the wait is the stream's first line, not typing and "on it"
  const streams = streamsIn(reference);
  const show = async (inLine: string | undefined) => {
    if (!streams) await context.sendActivity({ type: ActivityTypes.Typing });
    const waiting = inLine ? `${inLine}…` : ON_IT;
    if (streams && (await streamPlaceholder(context, deps.deliveries, key, waiting))) return;
    await teamsPlaceholder(context, deps.deliveries, key, waiting);
  };
  try {
    return await receive(deps, { key, message, action, reply }, show);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    await context.sendActivity(DATABASE_UNAVAILABLE_MESSAGE);
    return false;
  }
}
