// datadesk slack installs|rekey: the workspaces that installed the app through
// "Add to Slack" (SLACK_CLIENT_ID), and re-sealing their tokens after a key
// rotation (put the new key first in SLACK_TOKEN_KEYS, run rekey, then drop
// the old key).
// The store and the database load when a command runs, not for every command.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.js';
import type { PgInstallationStore } from '../../channels/slack/installation-store.js';
import type { SealingKey } from '../../core/sealing.js';

/** Runs `run` with the installation store of this configuration (its keys), or says installs are off. */
async function withInstallations<T>(run: (store: PgInstallationStore, keys: SealingKey[]) => Promise<T>): Promise<T> {
  const [{ PgInstallationStore }, { slackTokenKeys }, { commandContext, withDatabase }] = await Promise.all([
    import('../../channels/slack/installation-store.js'),
    import('../../channels/slack/token-seal.js'),
    import('../context.js'),
  ]);
  const ctx = commandContext();
  const oauth = ctx.config.slack?.oauth;
  if (!oauth) {
    throw new UserError(
      'Slack installs are off: set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_TOKEN_KEYS (a single SLACK_BOT_TOKEN keeps no installations).',
    );
  }
  const keys = slackTokenKeys(oauth.tokenKeys);
  return withDatabase(ctx, (db) => run(new PgInstallationStore(db.write, keys), keys));
}

export function registerSlack(program: Command): void {
  const slack = program.command('slack').description('Slack installs from many workspaces (SLACK_CLIENT_ID)');
  slack
    .command('installs')
    .description('the workspaces (and org-wide enterprises) that installed the app, newest last')
    .action(async () => {
      const installs = await withInstallations((store) => store.list());
      if (!installs.length) process.stdout.write('No workspace has installed the app yet (send an admin to /slack/install).\n');
      for (const i of installs) {
        process.stdout.write(
          `${i.installKey}  ${i.teamName ?? ''}${i.enterpriseId && i.enterpriseId !== i.installKey ? ` (enterprise ${i.enterpriseId})` : ''}  installed ${i.installedAt.toISOString()}\n`,
        );
      }
    });
  slack
    .command('rekey')
    .description('re-seal every installation with the first key of SLACK_TOKEN_KEYS (after a rotation)')
    .action(async () => {
      const { n, keys } = await withInstallations(async (store, keys) => ({ n: await store.rekey(), keys }));
      process.stdout.write(
        `${n} installation${n === 1 ? '' : 's'} re-sealed with key "${keys[0].id}"; the other keys in SLACK_TOKEN_KEYS can be dropped now.\n`,
      );
    });
}
