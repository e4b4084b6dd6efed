// Runs the built `datadesk` command (npm test builds first) as a user would.
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string | undefined> = {}, cwd?: string, input?: string): Promise<CliResult> {
  const main = path.resolve('dist/cli/main.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    if (input !== undefined) child.stdin!.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
