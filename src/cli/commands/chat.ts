// datadesk chat: a terminal conversation with the bot. The desk, the chat
// loop and the database load when it runs, not for every command.
import path from 'node:path';
import type { Command } from 'commander';

export function registerChat(program: Command): void {
  program
    .command('chat')
    .description('chat with the bot in the terminal (charts are saved as PNG files)')
    .option('--thread <id>', 'continue a thread', `chat-${Date.now().toString(36)}`)
    .action(async (opts: { thread: string }) => {
      const [{ createDesk }, { runChat }, { commandContext, withDatabase }] = await Promise.all([
        import('../../agents/create-desk.js'),
        import('../../channels/cli/chat.js'),
        import('../context.js'),
      ]);
      const ctx = commandContext();
      await withDatabase(
        ctx,
        async (db) => {
          const { desk, memory } = createDesk(ctx.config, db, ctx.logger);
          try {
            await runChat({
              desk,
              input: process.stdin,
              output: process.stdout,
              threadId: `cli:${opts.thread}`,
              chartDir: path.join(ctx.config.home, 'charts'),
              quickchartUrl: ctx.config.quickchartUrl,
            });
          } finally {
            await memory.close();
          }
        },
        { demoData: true },
      );
    });
}
