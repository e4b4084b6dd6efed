// The hostile-SQL corpus (test/fixtures/hostile-sql.json): statements a
// steered model could write. Each has the guard's expected refusal (`reason`),
// or, for resource bombs the guard accepts, the limit that must stop it
// (`limit`). `writes`: it would change something if it ran. `class`: the
// attack family (older entries are grouped by their reason). A path a
// statement tries to write is spelled /tmp/datadesk-pwned-__NONCE__; each
// run substitutes a fresh nonce and checks the file never appears.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { GuardReason } from '../../src/db/sql-guard.js';

type Limit = 'timeout' | 'bytes' | 'temp';

export interface Hostile {
  sql: string;
  reason?: GuardReason;
  limit?: Limit;
  writes: boolean;
  class?: string;
}

export interface Corpus {
  entries: Hostile[];
  /** the file the corpus's write attempts aim at, for this run */
  pwnedPath: string;
}

export function loadCorpus(): Corpus {
  const pwnedPath = `/tmp/datadesk-pwned-${randomBytes(6).toString('hex')}`;
  const raw = JSON.parse(readFileSync('test/fixtures/hostile-sql.json', 'utf8')) as Hostile[];
  return { pwnedPath, entries: raw.map((h) => ({ ...h, sql: h.sql.replaceAll('/tmp/datadesk-pwned-__NONCE__', pwnedPath) })) };
}

export const classOf = (h: Hostile): string => h.class ?? h.reason ?? 'unknown';

/** Entries grouped by class, in corpus order. */
export function byClass(entries: Hostile[]): Map<string, Hostile[]> {
  const groups = new Map<string, Hostile[]>();
  for (const h of entries) groups.set(classOf(h), [...(groups.get(classOf(h)) ?? []), h]);
  return groups;
}
