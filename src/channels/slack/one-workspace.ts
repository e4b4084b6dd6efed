// The single-token guard: with one SLACK_BOT_TOKEN (no OAuth installs), a
// request from any other workspace is dropped rather than answered there.
import type { AllMiddlewareArgs, AnyMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../../core/logger.js';

/** The workspace a request belongs to, as the request itself says (events, actions, commands). */
function bodyTeam(body: AnyMiddlewareArgs['body']): string | undefined {
  const b = body as { team_id?: string; team?: { id?: string } | null; event?: { team?: string } };
  return b.team_id ?? b.team?.id ?? undefined;
}

/**
 * With one bot token, a request from another workspace (an app distributed by mistake, a signed body from a
 * workspace that shares the app's signing secret) would be answered there with this token: Bolt takes the
 * request's own team id and never compares it with the token's. Dropped instead (acknowledged, so Slack does not
 * retry). The token's workspace is asked once (auth.test); while Slack cannot say, requests go through as before.
 */
export function oneWorkspaceOnly(logger: Logger) {
  let tokenTeam: Promise<string | undefined> | undefined;
  return async (args: AnyMiddlewareArgs & AllMiddlewareArgs) => {
    tokenTeam ??= args.client.auth.test().then(
      (r) => r.team_id,
      (error: Error) => {
        tokenTeam = undefined; // asked again with the next request
        logger.warn(`slack: auth.test failed (${error.message}); this request is not checked against the token's workspace`);
        return undefined;
      },
    );
    const from = bodyTeam(args.body);
    const mine = await tokenTeam;
    if (from && mine && from !== mine) {
      logger.warn(
        `slack: a request from workspace ${from} reached the single-workspace token of ${mine}; dropped (use SLACK_CLIENT_ID installs for many workspaces)`,
      );
      if ('ack' in args && typeof args.ack === 'function') await (args.ack as () => Promise<void>)();
      return;
    }
    await args.next();
  };
}
