// datadesk teams package: the Teams app package (manifest.json + two icons,
// zipped) with this bot's app id and domain filled in, ready to upload.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import AdmZip from 'adm-zip';
import type { Command } from 'commander';
import { UserError } from '../../core/errors.js';
import { packageRoot } from '../../core/paths.js';
import { commandContext } from '../context.js';

export function buildTeamsPackage(appId: string, domain: string): Buffer {
  const dir = path.join(packageRoot, 'manifests', 'teams');
  const manifest = readFileSync(path.join(dir, 'manifest.json'), 'utf8').replace(/\{\{MICROSOFT_APP_ID\}\}/g, appId).replace(/\{\{BOT_DOMAIN\}\}/g, domain);
  JSON.parse(manifest); // still valid JSON after filling in
  const zip = new AdmZip();
  zip.addFile('manifest.json', Buffer.from(manifest));
  zip.addFile('color.png', readFileSync(path.join(dir, 'color.png')));
  zip.addFile('outline.png', readFileSync(path.join(dir, 'outline.png')));
  return zip.toBuffer();
}

export function registerTeams(program: Command): void {
  const teams = program.command('teams').description('Microsoft Teams app');
  teams
    .command('package')
    .description('zip manifests/teams with MICROSOFT_APP_ID and the PUBLIC_BASE_URL domain filled in')
    .option('--out <file>', 'the zip to write', 'datadesk-teams.zip')
    .action(async (opts: { out: string }) => {
      const { config } = commandContext();
      if (!config.teams) throw new UserError('Set MICROSOFT_APP_ID (and MICROSOFT_APP_PASSWORD) first: the package carries the bot id.');
      if (!config.publicBaseUrl) throw new UserError('Set PUBLIC_BASE_URL (https://your.bot.host): Teams needs the bot\'s domain.');
      writeFileSync(opts.out, buildTeamsPackage(config.teams.appId, new URL(config.publicBaseUrl).host));
      process.stdout.write(`Wrote ${opts.out}: upload it in Teams (Apps -> Manage your apps -> Upload an app).\n`);
    });
}
