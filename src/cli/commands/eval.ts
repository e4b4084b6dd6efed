// datadesk eval backtest: accuracy of the backtest agent per task family.
import type { Command } from 'commander';
import { evaluateBacktests } from '../../eval/backtest-eval.js';
import { evaluateSql, loadBenchmark } from '../../eval/sql-eval.js';
import { createDesk } from '../../agents/create-desk.js';
import { llmFromConfig } from '../../llm/from-config.js';
import { commandContext, withDatabase } from '../context.js';
import { nonNegativeInt, positiveInt } from '../options.js';

export function registerEval(program: Command): void {
  const evaluate = program.command('eval').description('benchmarks of the agents, with whatever LLM is configured');
  evaluate
    .command('sql')
    .description('the crime benchmark (100 questions, 3 tiers): valid SQL, execution accuracy strict/relaxed, synthesis, failure reasons')
    .option('--limit <n>', 'only the first n questions', positiveInt)
    .action(async (opts: { limit?: number }) => {
      const ctx = commandContext();
      const report = await withDatabase(ctx, async (db) => {
        const { desk, memory } = createDesk(ctx.config, db, ctx.logger);
        try {
          const items = loadBenchmark();
          return await evaluateSql(
            { agent: desk.sql, memory, pool: db.read, statementTimeoutMs: ctx.config.statementTimeoutMs, llm: llmFromConfig(ctx.config) },
            opts.limit ? items.slice(0, opts.limit) : items,
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
        evaluateBacktests({ pool: db.read, statementTimeoutMs: ctx.config.statementTimeoutMs, logger: ctx.logger, llm: llmFromConfig(ctx.config) }, opts.perFamily, opts.seed),
      );
      process.stdout.write(report.lines.join('\n') + '\n');
    });
}
