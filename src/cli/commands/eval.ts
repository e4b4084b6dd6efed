// datadesk eval sql: the crime benchmarks through the SQL agent (src/eval/sql-eval.ts);
// datadesk eval conversations: the multi-turn benchmark (src/eval/conversation-eval.ts);
// datadesk eval backtest: accuracy of the backtest agent per task family.
import type { Command } from 'commander';
import { evaluateBacktests } from '../../eval/backtest-eval.js';
import { CONVERSATION_FILES, conversationFile, evaluateConversations, loadConversations } from '../../eval/conversation-eval.js';
import { BENCHMARK_FILES, evaluateSql, loadBenchmarks } from '../../eval/sql-eval.js';
import { createDesk } from '../../agents/create-desk.js';
import { llmFromConfig } from '../../llm/from-config.js';
import { commandContext, withDatabase } from '../context.js';
import { nonNegativeInt, positiveInt } from '../options.js';

export function registerEval(program: Command): void {
  const evaluate = program.command('eval').description('benchmarks of the agents, with whatever LLM is configured');
  evaluate
    .command('sql')
    .description(
      `the crime benchmarks (${BENCHMARK_FILES.join(', ')}; 3 tiers), each item's clarifications applied to its thread: ` +
        'valid SQL, execution accuracy strict/relaxed, synthesis, and per file and tier questions/answered/right/wrong/refused/asked/errors, failure reasons',
    )
    .option('--limit <n>', 'only the first n questions of each file', positiveInt)
    .action(async (opts: { limit?: number }) => {
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
      `the conversations file: a name under fixtures/benchmarks (${CONVERSATION_FILES.join(', ')}) or a path`,
      CONVERSATION_FILES[0],
    )
    .action(async (opts: { limit?: number; file: string }) => {
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
