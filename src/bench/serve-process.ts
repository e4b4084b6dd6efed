// A `serve` process for the benches that load it over HTTP: started from the
// same build as the bench, resolved with its URL once it says it is running.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Serve {
  url: string;
  child: ChildProcess;
}

/** `serve` from the same build as this bench (dist/ or wherever it was compiled). */
const SERVE_MAIN = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export function startServe(env: Record<string, string>, cpuProfileDir?: string): Promise<Serve> {
  const args = [...(cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : []), SERVE_MAIN, 'serve'];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  return new Promise((resolve, reject) => {
    const check = setInterval(() => {
      const m = /running \(health: (http:\/\/[\d.:]+)\/healthz/.exec(log);
      if (m) {
        clearInterval(check);
        resolve({ url: m[1], child });
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(check);
      reject(new Error(`serve exited with ${code}:\n${log}`));
    });
  });
}

/** A process's CPU time so far (user + system), in ms, from /proc (Linux); 0 once it has exited. */
export function cpuMsOf(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // after the command name, utime and stime are the 12th and 13th fields (14 and 15 of stat); clock ticks of 10 ms
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The database a PostgreSQL process works for, from its title ("postgres: [cluster: ]user database host(port) state"). */
function backendOf(pid: number): { database: string } | { leader: number } | undefined {
  let title: string;
  try {
    title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
  if (!title.startsWith('postgres: ')) return undefined;
  const leader = /parallel worker for PID (\d+)/.exec(title);
  if (leader) return { leader: Number(leader[1]) };
  const m = /^postgres: (?:\S+: )?(?:autovacuum worker (\S+)|\S+ (\S+) )/.exec(title);
  return m ? { database: m[1] ?? m[2] } : undefined;
}

/**
 * PostgreSQL's CPU for one database: its backends (the serve's pools, pg-boss, LISTEN), their parallel workers and
 * the autovacuum workers on it, summed from /proc. Sampled every `everyMs` so that a backend that exits mid-run
 * counts up to its last sample (a process shorter than that is missed); the server's shared processes (WAL writer,
 * checkpointer) are not counted. Needs PostgreSQL on this machine.
 */
export class DatabaseCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly database: string) {}

  private started = false;

  private sample(): void {
    const ours = new Set<number>();
    const workers: Array<[number, number]> = [];
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      if (this.last.has(pid)) {
        ours.add(pid); // a database's process stays that database's
        continue;
      }
      const of = backendOf(pid);
      if (!of) continue;
      if ('leader' in of) workers.push([pid, of.leader]);
      else if (of.database === this.database) ours.add(pid);
    }
    for (const [pid, leader] of workers) if (ours.has(leader)) ours.add(pid);
    for (const pid of ours) {
      const ms = cpuMsOf(pid);
      if (!ms && this.last.has(pid)) continue; // exited between the listing and the read
      if (!this.first.has(pid)) this.first.set(pid, this.started ? 0 : ms);
      this.last.set(pid, ms);
    }
  }

  /** From now: the processes alive now count from their CPU so far, those started later from zero. */
  start(everyMs = 200): void {
    this.first.clear();
    this.last.clear();
    this.started = false;
    this.sample();
    this.started = true;
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  /** The CPU ms used since start(). */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    let ms = 0;
    for (const [pid, last] of this.last) ms += last - (this.first.get(pid) ?? 0);
    return ms;
  }
}
