// datadesk ask "QUESTION" [--thread ID] [--choose TERM=OPTION] [--json]: the
// whole pipeline from the terminal; --thread keeps memory across calls. Only
// the command's definition lives here: what it does (ask-run.ts) loads when it runs.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.js';
import { exitCodesHelp } from '../output.js';
import type { AskOptions } from './ask-run.js';

export function registerAsk(program: Command): void {
  program
    .command('ask')
    .description('ask a question (crime data or a backtest) through the whole pipeline')
    .argument('[question...]', 'e.g. How many thefts were reported in 2019?')
    .option('--thread <id>', 'a thread id: clarifications and follow-ups carry over between calls (default: a new thread each call)')
    .option('--choose <term=option>', 'answer a clarifying question of this thread, e.g. night=22-06')
    .option(
      '--max-rows <n>',
      'with --json: the most rows returned (row_count is always the true total)',
      (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 1_000_000)
          throw new UserError(`--max-rows takes a whole number from 1 to 1,000,000, not "${v}"`);
        return n;
      },
      10_000,
    )
    .option(
      '--json',
      'print {route, status, sql, columns, rows, row_count, answer, assumptions, clarify, chart_png, trace, cost}: cost is wall and CPU ms per stage',
    )
    .option('--chart <file>', 'where to save the chart PNG')
    .addHelpText('after', exitCodesHelp({ clarify: true }))
    .action(async (words: string[], opts: AskOptions) => (await import('./ask-run.js')).runAsk(words, opts));
}
