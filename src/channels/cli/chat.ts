// datadesk chat: the playground in the terminal. Each line is a question (or
// /backtest ...); a clarifying question is answered by typing its option's
// number; charts are saved as PNG files and their path printed. In a terminal
// it has a prompt, line editing and history (the Up arrow recalls a question,
// it is never sent as one); piped input is read line by line, no prompt.
import { typedCommand } from '../../agents/typed-command.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { DataDesk } from '../../agents/desk.js';
import type { Answer } from '../../core/answer.js';
import { renderChart } from '../../charts/render.js';
import { renderAnswerText } from './render-text.js';

export interface ChatOptions {
  desk: DataDesk;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  chartDir: string;
  threadId: string;
  quickchartUrl?: string;
}

export async function runChat(o: ChatOptions): Promise<void> {
  const terminal = Boolean((o.input as NodeJS.ReadStream).isTTY && (o.output as NodeJS.WriteStream).isTTY);
  const rl = readline.createInterface({
    input: o.input,
    output: terminal ? o.output : undefined,
    terminal,
    historySize: 500,
    prompt: 'datadesk> ',
  });
  const ask = () => terminal && rl.prompt();
  const say = (text: string) => o.output.write(`${text}\n`);
  let pending: Extract<Answer, { kind: 'clarify' }> | undefined;
  let charts = 0;
  const show = async (answer: Answer) => {
    let chartPath: string | undefined;
    if (answer.kind === 'result' && answer.chart) {
      mkdirSync(o.chartDir, { recursive: true });
      chartPath = path.resolve(o.chartDir, `chart-${Date.now()}-${++charts}.png`);
      writeFileSync(chartPath, await renderChart(answer.chart, o.quickchartUrl));
    }
    say(renderAnswerText(answer, chartPath));
    pending = answer.kind === 'clarify' ? answer : undefined;
    if (pending) say(`(type 1-${pending.options.length} to choose)`);
    say('');
  };
  say('Data Desk: ask about Chicago crimes, /backtest RULES, "help", or "exit".');
  ask();
  for await (const raw of rl) {
    const line = raw.trim();
    if (!line) {
      ask();
      continue;
    }
    if (line === 'exit' || line === 'quit') break;
    const message = { platform: 'cli' as const, threadId: o.threadId };
    if (pending && /^\d+$/.test(line)) {
      const option = pending.options[Number(line) - 1];
      if (!option) {
        say(`Choose a number from 1 to ${pending.options.length}.`);
        ask();
        continue;
      }
      await show(await o.desk.choose(message, pending.term, option.id));
      ask();
      continue;
    }

    await show(await o.desk.answer({ ...message, ...typedCommand(line) }));
    ask();
  }
  rl.close();
}
