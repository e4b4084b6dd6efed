// Waits until `find` returns something (a recorded call, say), or fails with `describe()` after timeoutMs.
export async function waitFor<T>(find: () => T | undefined, describe: () => string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = find();
    if (hit !== undefined) return hit;
    if (Date.now() > end) throw new Error(`nothing matched in ${timeoutMs} ms; ${describe()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls an async `find` every 200 ms until it returns something, or fails after timeoutMs. */
export async function pollUntil<T>(find: () => Promise<T | undefined>, timeoutMs: number, what = 'the condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = await find().catch(() => undefined);
    if (hit !== undefined) return hit;
    if (Date.now() > end) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
