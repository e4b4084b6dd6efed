// Spawns the built `datadesk serve` (or `worker`) and resolves once it is
// listening, with its base URL and everything it has logged so far.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { tempDir } from './files.js';

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  log(): string;
}

export function spawnServe(env: Record<string, string>, children: ChildProcess[] = [], args: string[] = []): Promise<ServeProcess> {
  return spawnDatadesk(['serve', ...args], env, /running \(health: (http:\/\/[\d.:]+)\/healthz/, children);
}

/** `datadesk worker`, resolved once it takes questions. */
export function spawnWorker(env: Record<string, string>, children: ChildProcess[] = []): Promise<ServeProcess> {
  return spawnDatadesk(['worker'], env, /Data Desk worker is (running)/, children);
}

/** A built `datadesk` command, resolved when its log matches `ready` (the first group, if any, becomes `url`). */
function spawnDatadesk(args: string[], env: Record<string, string>, ready: RegExp, children: ChildProcess[]): Promise<ServeProcess> {
  const child = spawn(process.execPath, [path.resolve('dist/cli/main.js'), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', PORT: '0', SOCRATA_SCHEDULE: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`datadesk ${args.join(' ')} did not start:\n${log}`)), 180_000);
    const check = setInterval(() => {
      const m = ready.exec(log);
      if (m) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ url: m[1] ?? '', child, log: () => log });
      }
    }, 50);
    child.on('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`datadesk ${args.join(' ')} exited with ${code}:\n${log}`));
    });
  });
}

/** A free TCP port on loopback (for a server the test starts itself). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Asks through the playground API and returns the final answer event's JSON. */
export async function askPlayground(url: string, thread: string, text: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/api/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ thread, text }),
  });
  const body = await res.text();
  const event = body
    .split('\n\n')
    .map((chunk) => /^event: (\w+)\ndata: (.*)$/s.exec(chunk))
    .filter(Boolean)
    .find((m) => m![1] === 'answer');
  if (!event) throw new Error(`no answer event (HTTP ${res.status}): ${body.slice(0, 500)}`);
  return (JSON.parse(event[2]) as { answer: Record<string, unknown> }).answer;
}

/**
 * The environment of a spawned `datadesk` process on a test database: a home
 * of its own (removed by the returned cleanup), the superuser allowed, no demo
 * data, no digest ticks, rate limits out of the way.
 */
export function processEnv(databaseUrl: string, homes: { remove(): void }[], extra: Record<string, string> = {}): Record<string, string> {
  const home = tempDir();
  homes.push(home);
  return {
    DATABASE_URL: databaseUrl,
    DATADESK_ALLOW_SUPERUSER: 'true',
    DATADESK_HOME: home.dir,
    DEMO_DATA: 'off',
    RATE_LIMIT_USER_PER_MINUTE: '1000',
    DIGEST_TICK_SECONDS: '3600',
    ...extra,
  };
}
