// datadesk serve: the long-running bot process (see serve-run.ts). Only the
// command's definition lives here: the platform SDKs load when it runs, so
// `datadesk --help` and the other commands do not pay for them.
import type { Command } from 'commander';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the bot: HTTP endpoints, schedules, workers, and the demo data on first start')
    .option('--no-worker', 'only receive: queue questions for `datadesk worker` processes to answer')
    .action(async (options: { worker: boolean }) => (await import('./serve-run.js')).runServe(options));
}
