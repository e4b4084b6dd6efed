// datadesk eval sql: the crime benchmarks through the SQL agent (src/eval/sql-eval.ts);
// datadesk eval conversations: the multi-turn benchmark (src/eval/conversation-eval.ts);
// datadesk eval backtest: accuracy of the backtest agent per task family.
// The benchmarks, the agents and the database load when a command runs, not
// for every command; so the help names the benchmark files itself
// (test/cli/cli.test.ts holds it to the files the benchmarks read).
import type { Command } from 'commander';
import { nonNegativeInt, positiveInt } from '../options.js';

/** What every eval command needs, loaded when one runs. */
async function evalModules() {
  const [{ llmFromConfig }, { commandContext, withDatabase }] = await Promise.all([
    import('../../llm/from-config.js'),
    import('../context.js'),
  ]);
  return { llmFromConfig, commandContext, withDatabase };
}

export function registerEval(program: Command): void {
  const evaluate = program.command('eval').description('benchmarks of the agents, with whatever LLM is configured');
  evaluate
    .command('sql')
    .description(
      `the crime benchmarks (crime-100.jsonl, crime-chat-40.jsonl; 3 tiers), each item's clarifications applied to its thread: ` +
        'valid SQL, execution accuracy strict/relaxed, synthesis, and per file and tier questions/answered/right/wrong/refused/asked/errors, failure reasons',
    )
    .option('--limit <n>', 'only the first n questions of each file', positiveInt)
    .action(async (opts: { limit?: number }) => {
      const [{ llmFromConfig, commandContext, withDatabase }, { createDesk }, { evaluateSql, loadBenchmarks }] = await Promise.all([
        evalModules(),
        import('../../agents/create-desk.js'),
        import('../../eval/sql-eval.js'),
      ]);
      const ctx = commandContext();
      const report = await withDatabase(ctx, async (db) => {
        const { desk, memory } = createDesk(ctx.config, db, ctx.logger);
        try {
          const taken = new Map<string | undefined, number>();
          const items = loadBenchmarks().filter((item) => {
            taken.set(item.file, (taken.get(item.file) ?? 0) + 1);
            return !opts.limit || taken.get(item.file)! <= opts.limit;
          });
          return await evaluateSql(
            { agent: desk.sql, memory, pool: db.read, statementTimeoutMs: ctx.config.statementTimeoutMs, llm: llmFromConfig(ctx.config) },
            items,
          );
        } finally {
          await memory.close();
        }
      });
      process.stdout.write(report.lines.join('\n') + '\n');
    });
  evaluate
    .command('conversations')
    .description(
      'the multi-turn benchmark (fixtures/benchmarks/conversations.jsonl): threads of a first question and the fragments that edit it, ' +
        'each turn judged against a hand-written gold SQL; right per phase and per edit kind, and every turn not right',
    )
    .option('--limit <n>', 'only the first n conversations', positiveInt)
    .option(
      '--file <name>',
      'the conversations file: a name under fixtures/benchmarks (conversations.jsonl, conversations-heldout.jsonl, conversations-heldout2.jsonl, conversations-heldout3.jsonl, conversations-heldout4.jsonl, conversations-heldout5.jsonl, conversations-heldout6.jsonl, conversations-heldout7.jsonl) or a path',
      'conversations.jsonl',
    )
    .action(async (opts: { limit?: number; file: string }) => {
      const [
        { llmFromConfig, commandContext, withDatabase },
        { createDesk },
        { conversationFile, evaluateConversations, loadConversations },
      ] = await Promise.all([evalModules(), import('../../agents/create-desk.js'), import('../../eval/conversation-eval.js')]);
      const ctx = commandContext();
      const llm = llmFromConfig(ctx.config);
      const report = await withDatabase(ctx, async (db) => {
        const { desk, memory } = createDesk(ctx.config, db, ctx.logger);
        try {
          const conversations = loadConversations(conversationFile(opts.file)).slice(0, opts.limit);
          return await evaluateConversations(
            { desk, pool: db.read, statementTimeoutMs: ctx.config.statementTimeoutMs },
            conversations,
            llm?.model,
          );
        } finally {
          await memory.close();
        }
      });
      process.stdout.write(report.lines.join('\n') + '\n');
    });
  evaluate
    .command('backtest')
    .description('BacktestBench-style tasks of the four families: accuracy, indicator retrieval, failure reasons')
    .option('--per-family <n>', 'tasks per family', positiveInt, 10)
    .option('--seed <s>', 'random seed of the task generator', nonNegativeInt, 1)
    .action(async (opts: { perFamily: number; seed: number }) => {
      const [{ llmFromConfig, commandContext, withDatabase }, { evaluateBacktests }] = await Promise.all([
        evalModules(),
        import('../../eval/backtest-eval.js'),
      ]);
      const ctx = commandContext();
      const report = await withDatabase(ctx, (db) =>
        evaluateBacktests(
          { pool: db.read, statementTimeoutMs: ctx.config.statementTimeoutMs, logger: ctx.logger, llm: llmFromConfig(ctx.config) },
          opts.perFamily,
          opts.seed,
        ),
      );
      process.stdout.write(report.lines.join('\n') + '\n');
    });
}
