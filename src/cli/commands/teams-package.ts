// The Teams app package (manifest.json + two icons, zipped) with this bot's
// app id, domain and privacy and terms links filled in (`datadesk teams
// package`, teams.ts). Loaded when that command runs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import AdmZip from 'adm-zip';
import { UserError } from '../../core/errors.js';
import { packageRoot } from '../../core/paths.js';
import { manifestLinks } from '../../channels/teams/teams-pages.js';
import type { Config } from '../../config/env.js';

export interface TeamsPackageInput {
  appId: string;
  /** the bot's host name (validDomains, and the default pages) */
  domain: string;
  links: { websiteUrl: string; privacyUrl: string; termsOfUseUrl: string };
}

/** manifests/teams/manifest.json with the placeholders filled in (each value JSON-escaped). */
export function teamsManifest(input: TeamsPackageInput): Record<string, unknown> {
  const dir = path.join(packageRoot, 'manifests', 'teams');
  const values: Record<string, string> = {
    MICROSOFT_APP_ID: input.appId,
    BOT_DOMAIN: input.domain,
    WEBSITE_URL: input.links.websiteUrl,
    PRIVACY_URL: input.links.privacyUrl,
    TERMS_URL: input.links.termsOfUseUrl,
  };
  const text = readFileSync(path.join(dir, 'manifest.json'), 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
    if (!(name in values)) throw new Error(`manifests/teams/manifest.json: unknown placeholder ${whole}`);
    return JSON.stringify(values[name]).slice(1, -1);
  });
  return JSON.parse(text) as Record<string, unknown>;
}

export function buildTeamsPackage(input: TeamsPackageInput): Buffer {
  const dir = path.join(packageRoot, 'manifests', 'teams');
  const zip = new AdmZip();
  zip.addFile('manifest.json', Buffer.from(JSON.stringify(teamsManifest(input), null, 2)));
  zip.addFile('color.png', readFileSync(path.join(dir, 'color.png')));
  zip.addFile('outline.png', readFileSync(path.join(dir, 'outline.png')));
  return zip.toBuffer();
}

/** The package's input from the config, or why it cannot be built. */
export function teamsPackageInput(config: Pick<Config, 'teams' | 'publicBaseUrl' | 'teamsManifest'>): TeamsPackageInput {
  const appId = config.teams && !config.teams.local ? config.teams.appId : undefined;
  if (!appId)
    throw new UserError(
      "Set MICROSOFT_APP_ID first (the bot registration's application id): the package carries it. The password is not needed for the package.",
    );
  if (!config.publicBaseUrl) throw new UserError("Set PUBLIC_BASE_URL (https://your.bot.host): Teams needs the bot's domain.");
  if (!config.publicBaseUrl.startsWith('https://'))
    throw new UserError(`PUBLIC_BASE_URL=${config.publicBaseUrl}: Teams needs the bot at an https URL.`);
  const domain = new URL(config.publicBaseUrl).host;
  return { appId, domain, links: manifestLinks(config, domain) };
}
