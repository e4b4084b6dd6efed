// app_uninstalled and tokens_revoked: the workspace removed the app (or
// revoked its bot token). Its installation (the sealed token) is deleted and
// its digests stop; its other data (answers, feedback, verified pairs) stays
// until it expires or an operator deletes it, and a reinstall picks it up.
// With the single SLACK_BOT_TOKEN there is no installation to delete; the
// workspace's digests stop all the same.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type pg from 'pg';
import type { Logger } from '../../../core/logger.js';
import { disableWorkspaceDigests } from '../../../digest/subscriptions.js';
import type { PgInstallationStore } from '../installation-store.js';

export function appUninstalled(deps: { pool: pg.Pool; store?: PgInstallationStore; logger: Logger }) {
  const forget = async (context: AllMiddlewareArgs['context'], why: string) => {
    const teamId = context.teamId;
    const enterpriseId = context.enterpriseId;
    const isEnterpriseInstall = Boolean(context.isEnterpriseInstall);
    if (deps.store && (teamId || enterpriseId)) {
      await deps.store.deleteInstallation(
        isEnterpriseInstall
          ? { teamId: undefined, enterpriseId: enterpriseId!, isEnterpriseInstall: true }
          : { teamId: teamId!, enterpriseId, isEnterpriseInstall: false },
      );
    }
    const stopped = await disableWorkspaceDigests(
      deps.pool,
      'slack',
      { workspace: isEnterpriseInstall ? undefined : teamId, enterprise: enterpriseId },
      why,
    );
    deps.logger.info(
      `Slack: ${why} in ${isEnterpriseInstall ? `enterprise ${enterpriseId}` : `workspace ${teamId}`}: token deleted, ${stopped} digest${stopped === 1 ? '' : 's'} stopped`,
    );
  };
  return {
    uninstalled: async ({ context }: SlackEventMiddlewareArgs<'app_uninstalled'> & AllMiddlewareArgs) =>
      forget(context, 'the app was uninstalled'),
    tokensRevoked: async ({ event, context }: SlackEventMiddlewareArgs<'tokens_revoked'> & AllMiddlewareArgs) => {
      // a revoked user token (we ask for none) leaves the bot's token working
      if (!event.tokens.bot?.length) return;
      await forget(context, 'the bot token was revoked');
    },
  };
}
