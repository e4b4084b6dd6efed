// Whether and how this process runs Teams, decided once at start from the
// config. With MICROSOFT_APP_ID and its password, every activity must carry a
// Bot Framework token. With TEAMS_LOCAL=true and no app id (the Bot Framework
// Emulator's convention), activities are taken unauthenticated, so the
// receiver starts only on a loopback HOST, checks that requests come from this
// machine and answer to it (teamsRoutes' `local`), and says so loudly.
import type { Config } from '../../config/env.js';
import type { Logger } from '../../core/logger.js';
import { isLoopback } from '../../server/host-names.js';
import type { TeamsCredentials } from './teams-adapter.js';

export type TeamsMode =
  | { on: false; /** one line for the log when Teams was asked for but is not started */ why?: string }
  | { on: true; local: boolean; credentials: TeamsCredentials };

/** Why the configured Teams credentials cannot run a bot, or undefined. */
export function teamsCredentialProblem(config: Config): string | undefined {
  const t = config.teams;
  if (!t || t.local) return undefined;
  if (!t.appPassword && t.appType !== 'UserAssignedMSI') {
    return "MICROSOFT_APP_PASSWORD: required with MICROSOFT_APP_ID to run the bot (the bot registration's client secret); for the Bot Framework Emulator without a registration, unset MICROSOFT_APP_ID and set TEAMS_LOCAL=true";
  }
  if (t.appType === 'SingleTenant' && !t.tenantId) return 'MICROSOFT_APP_TENANT_ID: required for a SingleTenant bot';
  return undefined;
}

/**
 * The receiver's (`serve`) Teams mode. A worker has no endpoint and sends only
 * to the serviceUrl of references the receiver stored, so it takes
 * `config.teams` as it is (see teamsCredentials).
 */
export function teamsReceiverMode(config: Config): TeamsMode {
  const t = config.teams;
  if (!t) return { on: false };
  if (t.local && !isLoopback(config.host)) {
    return {
      on: false,
      why: `Teams is NOT started: TEAMS_LOCAL=true takes activities without authentication, which is allowed only on a loopback HOST, and HOST=${config.host} is not one. Set HOST=127.0.0.1 to try Teams with the Bot Framework Emulator, or MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD for a registered bot.`,
    };
  }
  return { on: true, local: t.local, credentials: teamsCredentials(t) };
}

export function teamsCredentials(t: NonNullable<Config['teams']>): TeamsCredentials {
  return { appId: t.appId, appPassword: t.appPassword, tenantId: t.tenantId, appType: t.appType };
}

/** The loud start-up lines of local mode (receiver). */
export function announceLocalTeams(logger: Logger, endpoint: string): void {
  logger.warn('*'.repeat(78));
  logger.warn(`TEAMS RUNS UNAUTHENTICATED, FOR LOCAL TESTING (TEAMS_LOCAL=true, no MICROSOFT_APP_ID): ${endpoint}`);
  logger.warn('takes activities without a Bot Framework token, from this machine only, and answers only to a serviceUrl on this machine.');
  logger.warn('Open it in the Bot Framework Emulator with the App ID and password left empty. Never expose this port.');
  logger.warn('*'.repeat(78));
}

/**
 * One warning when Teams is on and PUBLIC_BASE_URL is not https: a chart too
 * large to inline in a card is a link under it, and Teams loads only https
 * images (the Emulator on this machine loads http ones).
 */
export function publicUrlWarning(config: Config): string | undefined {
  if (!config.teams || config.publicBaseUrl?.startsWith('https://')) return undefined;
  const base = config.publicBaseUrl ?? `http://${config.host}:${config.port}`;
  const why = config.publicBaseUrl
    ? `PUBLIC_BASE_URL=${config.publicBaseUrl} is not an https URL`
    : `PUBLIC_BASE_URL is not set (links use the address Teams reached the bot at, as it was told, else ${base})`;
  return config.teams.local
    ? `Teams: ${why}: charts too large to inline in a card link to ${base}/charts/…, which the Emulator on this machine can load but Teams could not`
    : `Teams: ${why}: charts too large to inline in a card link to ${base}/charts/…, which Teams will not load; set PUBLIC_BASE_URL=https://your.bot.host`;
}
