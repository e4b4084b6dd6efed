// A question about a block the data does not have: "There is no block ... in
// the data; the nearest are: ...", never "No crimes are recorded" (issue 33).
// The nearest by trigram similarity where pg_trgm is installed, else by edit
// distance; and a block the data has is answered as before.
import { describe, expect, it } from 'vitest';
import { missingBlocks, nearestBlocks, rankByEdits } from '../../src/plan/block-check.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';

const data = crimeDatabase(3_000);

/** A block the generated data has (a theft's), and the same with its street name misspelt (a letter doubled). */
async function realAndTypo(): Promise<{ real: string; typo: string }> {
  const { rows } = await data.db.pool.query<{ block: string }>(
    `SELECT block FROM crimes WHERE primary_type = 'THEFT' AND block ~ '^[0-9]{3}XX [NSEW] [A-Z]{4,} (ST|AVE)$' GROUP BY block ORDER BY count(*) DESC, block LIMIT 1`,
  );
  const real = rows[0].block;
  const [number, direction, street, suffix] = real.split(' ');
  return { real, typo: `${number} ${direction} ${street.slice(0, 2)}${street[2]}${street.slice(2)} ${suffix}` };
}

describe('blocks the data does not have', () => {
  it('the desk says there is no such block and names the nearest, where it used to say no crimes were recorded', async () => {
    const { real, typo } = await realAndTypo();
    const { desk } = testDesk(data.db);
    const answer = await desk.answer({ platform: 'cli', threadId: 'blocks-1', text: `How many thefts were reported on ${typo} in 2019?` });
    expect(answer.kind).toBe('refusal');
    if (answer.kind !== 'refusal') return;
    expect(answer.reason).toMatch(new RegExp(`^There is no block "${typo}" in the data; the nearest are: ${real}(, [^,]+){0,2}\\.$`));
    expect(answer.reason).not.toMatch(/No crimes/i);
    expect(answer.alternatives[0]).toBe(`Ask again with the block as the data writes it, e.g. ${real}`);
    // the block as the data writes it is answered as before
    const right = await desk.answer({ platform: 'cli', threadId: 'blocks-2', text: `How many thefts were reported on ${real}?` });
    expect(right.kind).toBe('result');
  });

  it('nearest by edit distance without pg_trgm, by trigram similarity with it: the misspelt block first either way', async () => {
    const { real, typo } = await realAndTypo();
    const pool = data.db.pool;
    await pool.query('DROP EXTENSION IF EXISTS pg_trgm');
    expect(await missingBlocks(pool, [real])).toEqual([]);
    const [without] = await missingBlocks(pool, [typo, real]);
    expect(without.block).toBe(typo);
    expect(without.nearest[0]).toBe(real);
    expect(without.nearest.length).toBeLessThanOrEqual(3);
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    try {
      expect((await nearestBlocks(pool, typo))[0]).toBe(real);
    } finally {
      await pool.query('DROP EXTENSION IF EXISTS pg_trgm');
    }
  });

  it('edit distance first, then the longer shared prefix', () => {
    expect(rankByEdits('052XX W HURRON ST', ['053XX W HURON ST', '052XX W HURON ST', '052XX W HURON AVE', '001XX N STATE ST'])).toEqual([
      '052XX W HURON ST',
      '053XX W HURON ST',
      '052XX W HURON AVE',
      '001XX N STATE ST',
    ]);
  });
});
