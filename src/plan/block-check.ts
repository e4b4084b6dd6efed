// A plan that filters on a block the data does not have ("052XX W HURRON ST")
// would be answered "No crimes are recorded": true of the words, and no help.
// Before the plan is compiled its blocks are looked up in crimes_by_block (every
// block with an incident, kept by triggers), and a missing one is said as such,
// with the nearest blocks the data has: by trigram similarity where pg_trgm is
// installed, else by edit distance over the distinct blocks.
import type pg from 'pg';

export interface MissingBlock {
  block: string;
  /** the blocks of the data nearest to it, nearest first (at most `NEAREST`) */
  nearest: string[];
}

const NEAREST = 3;
/** the most distinct blocks read for the edit-distance fallback (Chicago has about 40,000) */
const MAX_BLOCKS = 200_000;

/** The plan's blocks the data does not have, each with its nearest; [] when all are there. */
export async function missingBlocks(pool: pg.Pool, blocks: readonly string[]): Promise<MissingBlock[]> {
  if (!blocks.length) return [];
  const { rows } = await pool.query<{ block: string }>('SELECT DISTINCT block FROM crimes_by_block WHERE block = ANY($1::text[])', [
    [...blocks],
  ]);
  const found = new Set(rows.map((r) => r.block));
  const missing = [...new Set(blocks)].filter((b) => !found.has(b));
  const out: MissingBlock[] = [];
  for (const block of missing) out.push({ block, nearest: await nearestBlocks(pool, block) });
  return out;
}

/** The sentence that answers a question about blocks the data does not have. */
export function missingBlocksSentence(missing: readonly MissingBlock[]): string {
  return missing
    .map(({ block, nearest }) =>
      nearest.length
        ? `There is no block "${block}" in the data; the nearest are: ${nearest.join(', ')}.`
        : `There is no block "${block}" in the data.`,
    )
    .join(' ');
}

/** The schema pg_trgm is installed in, if it is. */
async function trigramSchema(pool: pg.Pool): Promise<string | undefined> {
  const { rows } = await pool.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`,
  );
  return rows[0]?.schema;
}

export async function nearestBlocks(pool: pg.Pool, block: string, options: { trigram?: boolean } = {}): Promise<string[]> {
  const schema = options.trigram === false ? undefined : await trigramSchema(pool);
  if (schema) {
    const similarity = `"${schema.replace(/"/g, '""')}".similarity`;
    const { rows } = await pool.query<{ block: string }>(
      `SELECT block FROM (SELECT DISTINCT block FROM crimes_by_block WHERE block IS NOT NULL) b
       ORDER BY ${similarity}(block, $1) DESC, block LIMIT $2`,
      [block, NEAREST],
    );
    return rows.map((r) => r.block);
  }
  const { rows } = await pool.query<{ block: string }>(
    'SELECT DISTINCT block FROM crimes_by_block WHERE block IS NOT NULL ORDER BY block LIMIT $1',
    [MAX_BLOCKS],
  );
  return rankByEdits(
    block,
    rows.map((r) => r.block),
  ).slice(0, NEAREST);
}

/** Blocks by edit distance to `block`, then by the length of the prefix they share with it, then alphabetically. */
export function rankByEdits(block: string, blocks: readonly string[]): string[] {
  const scored = blocks.map((b) => ({ b, d: levenshtein(block, b), p: sharedPrefix(block, b) }));
  scored.sort((x, y) => x.d - y.d || y.p - x.p || (x.b < y.b ? -1 : x.b > y.b ? 1 : 0));
  return scored.map((s) => s.b);
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
