// What commands print for scripts, and the exit codes they end with.
// On POSIX, writes to a pipe are asynchronous: whatever the reader has not
// taken yet waits in Node's buffer, and process.exit drops it (a cut at the
// 64 KB pipe buffer when the reader is slow). So output is awaited, and main
// waits for stdout and stderr to drain before it exits.
import type { Answer } from '../core/answer.js';

/**
 * Writes text; resolves once it has been handed to the OS, or once the reader
 * has gone away (EPIPE), so a closed pipe never leaves a command hanging.
 */
export function writeOut(text: string, stream: NodeJS.WritableStream = process.stdout): Promise<void> {
  return new Promise((resolve) => {
    stream.write(text, () => resolve());
  });
}

/** Resolves when everything written to the stream so far has been flushed (writes are in order). */
export const drained = (stream: NodeJS.WritableStream): Promise<void> => writeOut('', stream);

/** Exit codes of commands that print an answer (ask, backtest run). */
const ANSWER_EXIT = {
  /** an answer with data */
  result: 0,
  /** the answer is an error: the database, the LLM, a timeout (also: a bad command line or setting) */
  error: 1,
  /** the bot declined: outside what it knows, a write, or a question it cannot answer without an LLM */
  refusal: 3,
  /** the bot needs a choice first: answer with --choose TERM=OPTION */
  clarify: 4,
} as const satisfies Record<Answer['kind'], number>;

export const answerExitCode = (answer: Answer): number => ANSWER_EXIT[answer.kind];

/** The exit codes as a command's --help shows them (backtest run never asks back: no line 4). */
export function exitCodesHelp(options: { clarify: boolean }): string {
  return [
    '',
    'Exit codes:',
    '  0  answered',
    '  1  the answer is an error (database, LLM, timeout), or a bad option or setting',
    '  2  unexpected internal error',
    '  3  refused: outside what the bot knows, or it needs an LLM that is not configured',
    ...(options.clarify ? ['  4  needs a choice first: run again with --choose TERM=OPTION'] : []),
  ].join('\n');
}
