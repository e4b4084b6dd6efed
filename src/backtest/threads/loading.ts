// When a worker thread may be terminated (pool.ts destroyWorkerPool). Node
// aborts the whole process (a failed V8 check, IsGraphAsync) when a thread is
// terminated while it evaluates modules: while it starts, or while a task
// loads the engine or the chart renderer (worker.ts loads them on first use).
// So the threads count their module loads in memory shared with the pool,
// and a pool that is shutting down waits for the count to reach zero, and for
// every thread to have loaded, before it terminates any.

/** Slots of the shared state. */
const LOADS = 0; // module loads in progress, over all the pool's threads
const CLOSING = 1; // 1 once the pool shuts down: no thread starts a load after that

/** The state a pool shares with its threads (through workerData). */
export function newLoadingState(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/** The key of the message a thread sends once its own modules have loaded: its threadId. */
export const THREAD_LOADED = 'datadeskThreadLoaded';

/**
 * Runs `load` (a module import), counted, unless the pool is shutting down: then it refuses, so the pool never
 * terminates a thread in the middle of one. The count goes up before the flag is read and the pool sets the flag
 * before it reads the count (both sequentially consistent), so a load either is seen by the pool or sees the flag.
 */
export async function countedLoad<T>(state: Int32Array, load: () => Promise<T>): Promise<T> {
  Atomics.add(state, LOADS, 1);
  try {
    if (Atomics.load(state, CLOSING)) throw new Error('the worker pool is shutting down');
    return await load();
  } finally {
    Atomics.sub(state, LOADS, 1);
  }
}

/** Marks the pool as shutting down: loads not yet begun are refused from now on. */
export function markClosing(state: Int32Array): void {
  Atomics.store(state, CLOSING, 1);
}

/** Module loads in progress on the pool's threads. */
export function loadsInProgress(state: Int32Array): number {
  return Atomics.load(state, LOADS);
}
