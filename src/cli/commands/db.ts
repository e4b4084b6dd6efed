// datadesk db migrate|status: the schema and what data there is.
import type { Command } from 'commander';
import { dataFreshness } from '../../db/freshness.js';
import { commandContext, withDatabase } from '../context.js';

export function registerDb(program: Command): void {
  const db = program.command('db').description('database schema and status');
  db.command('migrate')
    .description('apply pending migrations (also done at every start)')
    .action(async () => {
      const ctx = commandContext();
      await withDatabase(ctx, async () => undefined);
      process.stdout.write('Migrations are up to date.\n');
    });
  db.command('status')
    .description('row counts and the latest dates of the data tables, as JSON')
    .action(async () => {
      const ctx = commandContext();
      const freshness = await withDatabase(ctx, (d) => dataFreshness(d.read));
      process.stdout.write(JSON.stringify(freshness, null, 2) + '\n');
    });
}
