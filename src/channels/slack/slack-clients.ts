// The Web API client of a workspace. With SLACK_BOT_TOKEN (one workspace) it
// is always the same client; with OAuth installs (SLACK_CLIENT_ID) each
// workspace's bot token comes from its installation, and a workspace that
// uninstalled the app has none.
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { NoInstallationError, type PgInstallationStore } from './installation-store.js';

export class WorkspaceNotInstalledError extends Error {}

export interface SlackClients {
  /** The client of this workspace (team id; the enterprise of an org-wide install). Throws WorkspaceNotInstalledError. */
  forWorkspace(workspace?: string | null, enterprise?: string | null): Promise<WebClient>;
}

export function singleTokenClients(client: WebClient): SlackClients {
  return { forWorkspace: async () => client };
}

/** a token read from its installation is used for this long before it is read again (an uninstall takes effect within it) */
const CLIENT_TTL_MS = 30_000;

export function installedClients(store: PgInstallationStore, options: WebClientOptions | undefined): SlackClients {
  const cache = new Map<string, { client: WebClient; at: number }>();
  const tokenOf = async (workspace: string | null | undefined, enterprise: string | null | undefined): Promise<string> => {
    const tries = [
      ...(workspace ? [{ teamId: workspace, enterpriseId: enterprise ?? undefined, isEnterpriseInstall: false }] : []),
      // an org-wide install answers for every workspace of its enterprise
      ...(enterprise ? [{ teamId: undefined, enterpriseId: enterprise, isEnterpriseInstall: true }] : []),
    ];
    for (const query of tries) {
      try {
        const installation = await store.fetchInstallation(query);
        if (installation.bot?.token) return installation.bot.token;
      } catch (error) {
        if (!(error instanceof NoInstallationError)) throw error;
      }
    }
    throw new WorkspaceNotInstalledError(
      `Data Desk is not installed in Slack workspace ${workspace ?? enterprise ?? '(none named)'} (uninstalled, or never added)`,
    );
  };
  return {
    async forWorkspace(workspace, enterprise) {
      const id = `${workspace ?? ''}/${enterprise ?? ''}`;
      const hit = cache.get(id);
      if (hit && Date.now() - hit.at < CLIENT_TTL_MS) return hit.client;
      const client = new WebClient(await tokenOf(workspace, enterprise), options);
      cache.set(id, { client, at: Date.now() });
      return client;
    },
  };
}
