// The receivers' side of every platform, in one place: what an inbound
// question passes before it is queued (the workspace and channel allow-lists,
// the per-user and per-channel rate limits, all kept per workspace), and the
// one receive sequence every receiver calls: queue the job once per delivery
// key, then show where the question is in line.
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { turnCost, type RateLimiter } from '../core/rate-limit.js';
import { replyPlatformOf, type QueuedJob } from '../jobs/answer-job.js';
import type { Deliveries } from '../jobs/deliveries.js';
import type { AnswerQueue } from '../jobs/queue.js';

export interface Gate {
  userLimit: RateLimiter;
  channelLimit: RateLimiter;
  /** channel ids the bot answers in; empty: any channel it is in */
  allowedChannels: string[];
  /** workspaces (Slack teams, Teams tenants) the bot answers; empty: any that installed it */
  allowedWorkspaces: string[];
}

/** Who asked, and where. */
export interface Asker {
  workspace?: string;
  channel: string;
  userId: string;
  /** what was typed (a short fragment costs less than a new question: see turnCost) */
  text?: string;
  /** a button (a follow-up, a choice): costs as a fragment */
  click?: boolean;
}

export type GateVerdict = { go: true } | { go: false; tellUser?: string };

export const NOT_THIS_WORKSPACE =
  'Data Desk is not enabled for your organization; ask the person who runs it to add your tenant or workspace.';

/** Whether the bot answers this workspace at all (every click and command asks; questions ask admit, which includes it). */
export function workspaceAllowed(gate: Pick<Gate, 'allowedWorkspaces'>, workspace: string | undefined): GateVerdict {
  return !gate.allowedWorkspaces.length || (workspace && gate.allowedWorkspaces.includes(workspace))
    ? { go: true }
    : { go: false, tellUser: NOT_THIS_WORKSPACE };
}

/** A question, a fragment or a click: the allow-lists, then the rate limits (a fragment or a click costs half a question). */
export function admit(gate: Gate, who: Asker): GateVerdict {
  const allowed = workspaceAllowed(gate, who.workspace);
  if (!allowed.go) return allowed;
  if (gate.allowedChannels.length && !gate.allowedChannels.includes(who.channel)) {
    return { go: false, tellUser: 'I only answer in the channels my admins allowed; try one of those, or a direct message.' };
  }
  // per workspace: the same user or channel id in two workspaces is two askers
  const scope = who.workspace ?? '';
  const cost = turnCost(who);
  const wait = Math.max(
    gate.userLimit.take(`user:${scope}:${who.userId}`, cost),
    gate.channelLimit.take(`channel:${scope}:${who.channel}`, cost),
  );
  if (wait > 0) return { go: false, tellUser: `You are asking faster than I can answer well: please try again in ${wait} s.` };
  return { go: true };
}

/** What a placeholder says while its question waits behind others (undefined: it is next); each platform adds its ellipsis. */
function inLineText(ahead: number): string | undefined {
  return ahead > 0 ? `In line: ${ahead} question${ahead === 1 ? '' : 's'} ahead of yours` : undefined;
}

/** What receiving needs: the queue that admits a job once per key, and the rows that tell its place in line. */
export interface Reception {
  queue: Pick<AnswerQueue, 'enqueue'>;
  deliveries: Pick<Deliveries, 'placeInLine'>;
  logger: Logger;
}

/** How a platform shows a queued question: `inLine` is its place in line, undefined when nothing is ahead of it. */
export type ShowWaiting = (inLine: string | undefined) => Promise<unknown>;

/**
 * The one receive sequence. The job is queued once per delivery key: a second delivery of the key (a platform's
 * retry, a double click) is logged and goes no further (false). Then the placeholder shows the question's place in
 * line, unless a worker fast enough has one recorded already. `background`: the placeholder is shown after this
 * returns, so a platform's acknowledgement waits for the queue (durable), not for its own API (cosmetic); a
 * placeholder lost that way is posted by the worker instead. The digest scheduler hands its claimed periods here
 * too (a digest job, no placeholder: its post is made by the worker).
 */
export async function receive(r: Reception, job: QueuedJob, show?: ShowWaiting, o: { background?: boolean } = {}): Promise<boolean> {
  const platform = replyPlatformOf(job);
  if (!(await r.queue.enqueue(job))) {
    r.logger.debug(`${platform}: ${job.key} was delivered before; not answered twice`);
    return false;
  }
  if (!show) return true;
  const placeholder = async () => {
    const line = await r.deliveries.placeInLine(job.key);
    if (line.placeholder) return;
    await show(inLineText(line.ahead));
  };
  if (!o.background) await placeholder();
  else
    void placeholder().catch((error) =>
      r.logger.warn(`${platform}: the placeholder of ${job.key} could not be shown (${describeError(error)}); the worker shows one`),
    );
  return true;
}
