// The worker-thread pool for CPU-bound work (piscina): the backtest engine and
// its factor evaluation, whole-market scans and chart PNGs run here, so the
// event loop that acknowledges Slack and answers /healthz is never held for
// long. Created on first use with one thread; more start, up to one per
// available core, only when tasks wait for one (a whole-market scan), and once
// started they stay: idle threads do not keep the process alive, and
// destroyWorkerPool() stops them for a clean exit, once no thread is loading
// modules (loading.ts: terminating one mid-load aborts the process). A cold
// process that draws one chart starts one thread, not one per core.
//
// The threads run compiled JavaScript: from dist/ the script is this file's
// sibling worker.js; from the TypeScript sources (vitest) it is the same file
// under dist/, which `npm run build` (the pretest script) writes.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { packageRoot } from '../../core/paths.js';
import { UserError } from '../../core/errors.js';
import type { TaskName, TaskInput, TaskOutput } from './worker.js';
import { loadsInProgress, markClosing, newLoadingState, THREAD_LOADED } from './loading.js';

/** The pool, the state its threads count their module loads in, and the threads that have loaded (by threadId). */
interface ThreadPool {
  piscina: Piscina;
  loading: Int32Array;
  loaded: Set<number>;
}

let pool: ThreadPool | undefined;

/** How long a pool that shuts down waits for its threads to finish loading, at most: then it stops them anyway. */
const STOP_WAIT_MS = 30_000;

/** The compiled worker script for this module, from dist/ or from src/. */
function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  if (here.endsWith('.js')) return path.join(dir, 'worker.js');
  const compiled = path.join(packageRoot, 'dist', path.relative(path.join(packageRoot, 'src'), dir), 'worker.js');
  if (!existsSync(compiled)) throw new Error(`the worker thread script ${compiled} is missing: run npm run build first`);
  return compiled;
}

/** Threads the pool runs: one per available core, at least one. */
export function poolSize(): number {
  return Math.max(1, os.availableParallelism());
}

function thePool(): Piscina {
  if (!pool) {
    const size = poolSize();
    const loading = newLoadingState();
    const loaded = new Set<number>();
    const piscina = new Piscina({
      filename: pathToFileURL(workerScript()).href,
      minThreads: 1,
      maxThreads: size,
      // threads stay warm between questions (their modules loaded, their code optimised): never reaped once started
      idleTimeout: Infinity,
      workerData: { loading },
    });
    piscina.on('message', (message: unknown) => {
      if (message && typeof message === 'object' && THREAD_LOADED in message)
        loaded.add((message as Record<string, number>)[THREAD_LOADED]);
    });
    pool = { piscina, loading, loaded };
  }
  return pool.piscina;
}

/** A worker's answer that a user error stopped the work (its message is for the user). */
interface WorkerUserError {
  userError: string;
}

/** Runs one task on a worker thread. */
export async function runTask<N extends TaskName>(name: N, input: TaskInput<N>): Promise<TaskOutput<N>> {
  const out = (await thePool().run(input, { name })) as TaskOutput<N> | WorkerUserError;
  if (out && typeof out === 'object' && 'userError' in out) throw new UserError(out.userError);
  return out as TaskOutput<N>;
}

/** Worker threads started so far (none until work worth a thread: run-threaded.ts runs small work here). */
export function workerThreads(): number {
  return pool?.piscina.threads.length ?? 0;
}

/** Whether no thread of the pool is loading modules: every one has loaded its own, and no task is loading more. */
const atRest = (p: ThreadPool) => loadsInProgress(p.loading) === 0 && p.piscina.threads.every((t) => p.loaded.has(t.threadId));

/**
 * Stops the threads (pending tasks fail); the next task starts a new pool. A thread still starting, or a task loading
 * the engine or the renderer, is waited for first (loading.ts): terminated then, Node would abort the process.
 */
export async function destroyWorkerPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  if (!p) return;
  markClosing(p.loading);
  const until = Date.now() + STOP_WAIT_MS;
  while (!atRest(p) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
  await p.piscina.destroy();
}
