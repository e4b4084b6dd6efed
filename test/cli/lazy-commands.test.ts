// `datadesk --help` and every command's start load only the commands'
// definitions: what a command does loads when it runs (src/cli/main.ts).
// Loading them all up front cost 0.8-0.9 s of every start on a busy machine.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCHMARK_FILES } from '../../src/eval/sql-eval.js';
import { CONVERSATION_FILES } from '../../src/eval/conversation-eval.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

/** The files a run of the built CLI loads, as paths under the project (node's own modules left out). */
function filesLoaded(args: string[]): Promise<string[]> {
  const hook = tmp.file(
    'hook.mjs',
    `export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) process.stderr.write('LOADED ' + r.url + '\\n'); return r; }`,
  );
  const register = tmp.file('register.mjs', `import { register } from 'node:module'; register(${JSON.stringify(`file://${hook}`)});`);
  const root = path.resolve('.');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', register, path.resolve('dist/cli/main.js'), ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', () =>
      resolve(
        [...stderr.matchAll(/^LOADED file:\/\/(.*)$/gm)]
          .map((m) => path.relative(root, decodeURIComponent(m[1])))
          .filter((f) => !f.startsWith('..')),
      ),
    );
  });
}

describe('the commands load what they do only when they run', () => {
  it('datadesk --help loads the CLI and commander, nothing of the agents, the engine, the database or their libraries', async () => {
    const loaded = await filesLoaded(['--help']);
    expect(loaded).toContain('dist/cli/commands/backtest.js');
    const packages = new Set(loaded.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/')[1]));
    expect([...packages]).toEqual(['commander']);
    const ours = loaded.filter((f) => f.startsWith('dist/'));
    expect(ours.filter((f) => !/^dist\/(cli|core)\//.test(f) || /-run\.js$|-package\.js$/.test(f))).toEqual([]);
  });

  it("a command's help names the benchmark files the benchmarks read (it says them without loading the benchmarks)", async () => {
    const sql = await runCli(['eval', 'sql', '--help']);
    for (const file of BENCHMARK_FILES) expect(sql.stdout).toContain(file);
    const conversations = await runCli(['eval', 'conversations', '--help']);
    for (const file of CONVERSATION_FILES) expect(conversations.stdout).toContain(file);
    // commander wraps the help at 80 columns
    expect(conversations.stdout.replace(/\s+/g, ' ')).toContain(`(default: "${CONVERSATION_FILES[0]}")`);
  });
});
