// datadesk worker: answers queued questions and digests (see worker-run.ts).
// Only the command's definition lives here: the platform SDKs load when it runs.
import type { Command } from 'commander';

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('answer queued questions (beside `serve --no-worker`; run as many as you like)')
    .action(async () => (await import('./worker-run.js')).runWorker());
}
