// datadesk teams package: the Teams app package (manifest.json + two icons,
// zipped) with this bot's app id, domain and privacy and terms links filled
// in, ready to upload. It needs only MICROSOFT_APP_ID and PUBLIC_BASE_URL (the
// password is the running bot's business, not the package's). Building it
// (teams-package.ts) loads when the command runs.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';

export function registerTeams(program: Command): void {
  const teams = program.command('teams').description('Microsoft Teams app');
  teams
    .command('package')
    .description('zip manifests/teams with MICROSOFT_APP_ID, the PUBLIC_BASE_URL domain and the privacy and terms links filled in')
    .option('--out <file>', 'the zip to write', 'datadesk-teams.zip')
    .action(async (opts: { out: string }) => {
      const [{ buildTeamsPackage, teamsPackageInput }, { commandContext }] = await Promise.all([
        import('./teams-package.js'),
        import('../context.js'),
      ]);
      const { config, logger } = commandContext();
      const input = teamsPackageInput(config);
      writeFileSync(opts.out, buildTeamsPackage(input));
      const own = [!config.teamsManifest.privacyUrl && 'TEAMS_PRIVACY_URL', !config.teamsManifest.termsUrl && 'TEAMS_TERMS_URL'].filter(
        Boolean,
      );
      if (own.length) {
        logger.warn(
          `${own.join(' and ')} unset: the manifest links to the bot's own pages (${input.links.privacyUrl}, ${input.links.termsOfUseUrl}), which say what this deployment keeps; set your organization's pages before publishing the app to its catalog`,
        );
      }
      process.stdout.write(`Wrote ${opts.out}: upload it in Teams (Apps -> Manage your apps -> Upload an app).\n`);
    });
}
