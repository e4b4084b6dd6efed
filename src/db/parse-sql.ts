// PostgreSQL's own parser (libpg-query, WASM) behind one bounded cache keyed by
// the exact SQL text. An answer's SQL is parsed by the guard, the word and claim
// checks, the ordering check and the rollup navigation, about three times over a
// few distinct texts: 8.5-12% of serve's CPU under load went to the WASM parse.
// The tree is shared between callers, so it is deep-frozen: a caller that tried
// to change it would throw (modules are strict), never change another's tree.
// A text that does not parse is cached as its syntax error (libpg-query's
// SqlError, with the cursor position) and rejects each time with that error, as
// the parser itself would; any other failure (the module not loading, an empty
// text) is not cached and is met again on the next call.
import { parse } from 'libpg-query';

const MAX_ENTRIES = 500;

type Parsed = { tree: unknown } | { error: unknown };
const cache = new Map<string, Parsed>();

// for...in rather than Object.values: the walk costs a tenth of a parse, not a third
function deepFreeze<T>(node: T): T {
  if (node && typeof node === 'object') {
    Object.freeze(node);
    for (const key in node) {
      const value = node[key];
      if (value && typeof value === 'object') deepFreeze(value);
    }
  }
  return node;
}

/** libpg-query's tree of `sql` (frozen, shared: do not change it), or its parse error. */
export async function parseSql(sql: string): Promise<unknown> {
  let entry = cache.get(sql);
  if (entry) {
    // most recently used last: a Map keeps insertion order
    cache.delete(sql);
  } else {
    try {
      entry = { tree: deepFreeze(await parse(sql)) };
    } catch (error) {
      if (!(error as { sqlDetails?: unknown }).sqlDetails) throw error;
      entry = { error };
    }
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  }
  cache.set(sql, entry);
  if ('error' in entry) throw entry.error;
  return entry.tree;
}
