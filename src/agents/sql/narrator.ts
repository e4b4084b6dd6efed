// The deterministic narrator of a free-SQL result: the facts its shape calls
// for (result-facts.ts), in our sentences, every number from the database.
// Used when no LLM is configured, when the LLM's pick of facts fails, and by
// the benchmarks.
import type { QueryResult } from '../../core/result-shape.js';
import type { ColumnFacts } from './narration-facts.js';
import { defaultFacts, resultFacts, tellFacts } from './result-facts.js';

export function narrate(r: QueryResult, opts: { whole?: ColumnFacts[]; ordered?: boolean } = {}): string {
  return tellFacts(defaultFacts(resultFacts(r, { whole: opts.whole, ordered: opts.ordered ?? false })));
}
