// datadesk sql check "SQL": the guard's verdict as JSON (exit 1 when refused).
// The guard (the SQL parser) loads when it runs, not for every command.
import type { Command } from 'commander';
import { writeOut } from '../output.js';

export function registerSql(program: Command): void {
  const sql = program.command('sql').description('the SQL guard');
  sql
    .command('check')
    .description("print the guard's verdict on a query as JSON: {ok, tables} or {ok, reason, message}")
    .argument('<sql...>', 'the query')
    .addHelpText('after', '\nExit codes: 0 the guard accepts the query, 1 it refuses it (the JSON says why), 2 unexpected internal error')
    .action(async (words: string[]) => {
      const { checkSql } = await import('../../db/sql-guard.js');
      const verdict = await checkSql(words.join(' '));
      await writeOut(JSON.stringify(verdict) + '\n');
      if (!verdict.ok) process.exitCode = 1;
    });
}
