// The offline reader in a thread, for the tests of edits (test/plan/*): the community areas from the migration
// that creates them, a thread read turn by turn, and a plan compared without the words its periods were said with.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { migrationsDir } from '../../src/core/paths.js';
import { parsePlan, type QueryPlan, type QueryPlanInput } from '../../src/plan/query-plan.js';
import { readInThread, type ReadContext } from '../../src/plan/reader.js';

/** A plan as a test writes it: readonly literals ("as const") allowed. */
type WrittenPlan = QueryPlanInput | Readonly<Record<string, unknown>>;

/** Community area names (lower case) -> numbers, as migration 002 inserts them. */
function areasOfMigration(): Map<string, number> {
  const areas = new Map<string, number>();
  for (const m of readFileSync(`${migrationsDir}/002_crimes.sql`, 'utf8').matchAll(/\((\d+), '((?:[^']|'')+)'\)/g))
    areas.set(m[2].replace(/''/g, "'").toLowerCase(), Number(m[1]));
  return areas;
}

/**
 * The reader's helpers over data ending on latestDate. asEdit: expectEdit also requires the reading to be an edit of
 * the last plan (not a question complete on its own).
 */
export function threadReader(latestDate: string, { asEdit }: { asEdit: boolean }) {
  const areas = areasOfMigration();
  const ctx: ReadContext = { latestDate, earliestDate: '2001-01-01', areas };

  /** The thread's plan after each of these texts, in order (each must read). */
  function thread(...texts: string[]): QueryPlan {
    let last: QueryPlan | undefined;
    for (const text of texts) {
      const r = readInThread(text, last, ctx);
      if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
      last = parsePlan(r.plan);
    }
    return last!;
  }

  /** A plan without the words its periods were said with. */
  function bare(plan: WrittenPlan): QueryPlan {
    const p = parsePlan(structuredClone(plan) as QueryPlanInput);
    if (p.filters.time) delete p.filters.time.said;
    if (p.compareWith) delete p.compareWith.said;
    return p;
  }

  function expectEdit(last: QueryPlan, text: string, expected: WrittenPlan) {
    const r = readInThread(text, last, ctx);
    if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
    if (asEdit) expect(r.edit, text).toBe(true);
    expect(bare(r.plan), text).toEqual(bare(expected));
  }

  /** The thread after each text, each read with the two answers before it, as the bot reads them ("both", "undo"). */
  function threadWithBefore(...texts: string[]): { last: QueryPlan; before: QueryPlan } {
    let last: QueryPlan | undefined;
    let before: QueryPlan | undefined;
    for (const text of texts) {
      const r = readInThread(text, last, ctx, before);
      if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)}`);
      before = last;
      last = parsePlan(r.plan);
    }
    return { last: last!, before: before! };
  }

  return { ctx, areas, thread, threadWithBefore, bare, expectEdit };
}
