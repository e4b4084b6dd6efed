// What the deployment docs and compose.yaml may name, read from the code itself:
// the variables src/config/env.ts accepts and the commands (with their options)
// the built CLI has. The docs' tests check every name against these.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const root = path.resolve(import.meta.dirname, '../..');
export const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** The keys of env.ts's schema: every variable the app reads. */
export function envNames(): Set<string> {
  const source = read('src/config/env.ts');
  const start = source.indexOf('const schema = z.object({');
  const body = source.slice(start, source.indexOf('\n});', start));
  const names = new Set([...body.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]));
  if (names.size < 40) throw new Error(`read only ${names.size} variables from src/config/env.ts: has its schema moved?`);
  return names;
}

const run = promisify(execFile);
const helps = new Map<string, Promise<string>>();

/** `datadesk <words> --help` of the built CLI (dist/, built by `npm test`'s pretest). */
function helpOf(words: string[]): Promise<string> {
  const key = words.join(' ');
  if (!helps.has(key))
    helps.set(
      key,
      run(process.execPath, [path.join(root, 'dist/cli/main.js'), ...words, '--help'], { cwd: root, timeout: 60_000 }).then(
        (r) => r.stdout,
      ),
    );
  return helps.get(key)!;
}

/** Every runnable command, as `datadesk --help` lists it under "All commands" ("ingest crimes", "serve", ...). */
export async function cliCommands(): Promise<string[]> {
  const help = await helpOf([]);
  const list = help.slice(help.indexOf('All commands:'));
  return [...list.matchAll(/^ {2}datadesk (.{18}\S*)/gm)].map((m) => m[1].trim());
}

/**
 * A command line as the docs write it ("ingest crimes --csv /import/Crimes.csv"): the command it names,
 * the longest run of leading words that is a command or a group of commands, and its --options.
 */
export function parseCommandLine(line: string, commands: string[]): { command: string; options: string[] } {
  const words = line.trim().split(/\s+/);
  let command = '';
  for (let n = 1; n <= Math.min(words.length, 3); n++) {
    const candidate = words.slice(0, n).join(' ');
    if (commands.some((c) => c === candidate || c.startsWith(`${candidate} `))) command = candidate;
    else break;
  }
  // "--csv", "--out=FILE", and the "[--from" and "--to]" of a usage line
  const options = words.map((w) => /^\[?(--[a-z][a-z0-9-]*)/.exec(w)?.[1]).filter((o): o is string => o !== undefined);
  return { command, options };
}

/** Whether `datadesk <command> --help` lists each option (its own, or commander's --help/--version). */
export async function unknownOptions(command: string, options: string[]): Promise<string[]> {
  const help = await helpOf(command.split(' '));
  return options.filter((o) => o !== '--help' && o !== '--version' && !new RegExp(`(^|[\\s,])${o}\\b`, 'm').test(help));
}
