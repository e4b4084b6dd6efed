// The receivers' side of every chat platform, in one place: what an inbound
// question passes before it is queued (the workspace and channel allow-lists,
// the per-user and per-channel rate limits, all kept per workspace), and the
// words a question waiting in line shows. Queueing itself (once per delivery
// key) is the queue's: see jobs/queue.ts.
import { turnCost, type RateLimiter } from '../core/rate-limit.js';

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

/** What a placeholder says while its question waits behind others (undefined: it is being worked on). */
export function inLineText(ahead: number): string | undefined {
  return ahead > 0 ? `In line: ${ahead} question${ahead === 1 ? '' : 's'} ahead of yours…` : undefined;
}
