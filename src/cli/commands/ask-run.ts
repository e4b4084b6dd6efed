// What `datadesk ask` does (its options: ask.ts). Loaded when it runs, so
// `datadesk --help` and the other commands do not load the agents.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { typedCommand } from '../../agents/typed-command.js';
import { destroyWorkerPool } from '../../backtest/threads/pool.js';
import { createDesk } from '../../agents/create-desk.js';
import { renderAnswerText } from '../../channels/cli/render-text.js';
import { answerText, type Answer } from '../../core/answer.js';
import { answerCost, cpuMsSince, type StageCost } from '../../core/answer-cost.js';
import { UserError } from '../../core/errors.js';
import { chartPng } from '../chart-png.js';
import { commandContext, withDatabase } from '../context.js';
import { answerExitCode, writeOut } from '../output.js';

const STATUS: Record<Answer['kind'], string> = { result: 'answered', clarify: 'clarify', refusal: 'rejected', error: 'error' };

/** The --json shape of the issue: one flat object a script can read; `cost` is where the answer's time went (core/answer-cost.ts). */
function answerJson(answer: Answer, chartPng: string | null, chart?: StageCost): Record<string, unknown> {
  const unsupported = answer.kind === 'refusal' && answer.route === 'sql';
  return {
    route: answer.route,
    status: unsupported ? 'unsupported' : STATUS[answer.kind],
    sql: answer.kind === 'result' ? (answer.sql[0] ?? null) : null,
    columns: answer.kind === 'result' ? (answer.table?.columns ?? []) : [],
    rows: answer.kind === 'result' ? (answer.table?.rows ?? []) : [],
    row_count: answer.kind === 'result' ? (answer.table?.rowCount ?? 0) : 0,
    answer: answerText(answer, 'narration'),
    assumptions: answer.kind === 'result' ? answer.assumptions : [],
    understood: answer.kind === 'result' ? (answer.understood ?? null) : null,
    clarify: answer.kind === 'clarify' ? { term: answer.term, question: answer.question, options: answer.options } : null,
    chart_png: chartPng,
    trace: answer.trace,
    cost: answerCost(answer.trace, chart ? { chart } : {}),
  };
}

export interface AskOptions {
  thread?: string;
  choose?: string;
  json?: boolean;
  chart?: string;
  maxRows: number;
}

export async function runAsk(words: string[], opts: AskOptions): Promise<void> {
  const question = words.join(' ').trim();
  if (!question && !opts.choose) throw new UserError('Ask a question, e.g. datadesk ask "How many thefts were reported in 2019?"');
  if (opts.choose && !opts.thread)
    throw new UserError('--choose answers a question of a thread: give the --thread it was asked in (the clarifying answer names it)');
  // separate calls are separate conversations unless they name the same thread
  const thread = opts.thread ?? randomBytes(6).toString('hex');
  const ctx = commandContext();
  const answer = await withDatabase(
    ctx,
    async (db) => {
      // a script reading --json gets the rows, not the chat display's first few
      const config = opts.json ? { ...ctx.config, sqlDisplayRows: opts.maxRows } : ctx.config;
      const { desk, memory } = createDesk(config, db, ctx.logger);
      try {
        const threadId = `cli:${thread}`;
        if (opts.choose) {
          const [term, option] = opts.choose.split('=');
          if (!term || !option) throw new UserError('--choose takes TERM=OPTION, e.g. night=22-06');
          return await desk.choose({ platform: 'cli', threadId }, term.trim(), option.trim());
        }
        return await desk.answer({ platform: 'cli', threadId, ...typedCommand(question) });
      } finally {
        await memory.close();
      }
    },
    { demoData: true },
  ).finally(
    // a backtest's threads are stopped once none is loading (pool.ts): the process' exit would terminate a thread
    // that started late and is still loading, which can abort Node
    destroyWorkerPool,
  );
  let chartPath: string | null = null;
  let chartCost: StageCost | undefined;
  if (answer.kind === 'result' && answer.chart) {
    chartPath = path.resolve(opts.chart ?? path.join(ctx.config.home, 'charts', `answer-${Date.now()}.png`));
    mkdirSync(path.dirname(chartPath), { recursive: true });
    const started = performance.now();
    const cpu = process.cpuUsage();
    // drawn on this thread (chart-png.ts), so the process' CPU is the drawing's
    writeFileSync(chartPath, await chartPng(answer.chart, ctx.config.quickchartUrl));
    chartCost = { wallMs: Math.round((performance.now() - started) * 100) / 100, cpuMs: cpuMsSince(cpu) };
  }
  if (opts.json) await writeOut(JSON.stringify(answerJson(answer, chartPath, chartCost), null, 2) + '\n');
  else {
    const hint =
      answer.kind === 'clarify' ? `Answer with: datadesk ask --thread ${thread} --choose ${answer.term}=${answer.options[0].id}\n` : '';
    await writeOut(renderAnswerText(answer, chartPath ?? undefined) + '\n' + hint);
  }
  process.exitCode = answerExitCode(answer);
}
