// datadesk db migrate|status: the schema and what data there is. What each
// does loads when it runs, not for every command.
import { UserError } from '../../core/errors.js';
import type { Command } from 'commander';

export function registerDb(program: Command): void {
  const db = program.command('db').description('database schema and status');
  db.command('migrate')
    .description('apply pending migrations (also done at every start)')
    .action(async () => {
      const { commandContext, withDatabase } = await import('../context.js');
      const ctx = commandContext();
      await withDatabase(ctx, async () => undefined);
      process.stdout.write('Migrations are up to date.\n');
    });
  db.command('harden')
    .description(
      'the superuser-only walls of a deployment whose app login is not a superuser: temp_file_limit on the reader, EXECUTE on dangerous built-ins revoked from PUBLIC',
    )
    .requiredOption(
      '--admin-url <url>',
      'a superuser login on the same server, e.g. postgres://postgres@db.internal/datadesk (used once, never kept)',
    )
    .action(async (opts: { adminUrl: string }) => {
      const [{ hardenDatabase }, { commandContext }] = await Promise.all([import('../../db/harden.js'), import('../context.js')]);
      const ctx = commandContext();
      if (!ctx.config.databaseUrl)
        throw new UserError(
          'db harden is for a deployment with DATABASE_URL: the embedded server already runs every step as its own superuser.',
        );
      const report = await hardenDatabase(opts.adminUrl, ctx.config.databaseUrl, { tempFileLimit: ctx.config.reader.tempFileLimit });
      process.stdout.write(`${report.database}: the reader login ${report.role}; the app's login ${report.owner} keeps EXECUTE.\n`);
      for (const d of report.done) process.stdout.write(`  done: ${d}\n`);
      for (const a of report.already) process.stdout.write(`  already there: ${a}\n`);
      process.stdout.write('Every wall is in place.\n');
    });
  db.command('status')
    .description('row counts and the latest dates of the data tables, as JSON')
    .action(async () => {
      const [{ dataFreshness }, { commandContext, withDatabase }] = await Promise.all([
        import('../../db/freshness.js'),
        import('../context.js'),
      ]);
      const ctx = commandContext();
      const freshness = await withDatabase(ctx, (d) => dataFreshness(d.read));
      process.stdout.write(JSON.stringify(freshness, null, 2) + '\n');
    });
}
