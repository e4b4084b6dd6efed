// The plan path's types, apart from its code (plan-path.ts), so that the
// agent's state can name them without importing the code that reads the state.
import type { QueryPlan } from '../../plan/query-plan.js';
import type { ReadContext } from '../../plan/reader.js';

/** The reader's context, with the community area names by number (for "Understood as"). */
export interface PlanContext extends ReadContext {
  areaNames: ReadonlyMap<number, string>;
}

/** What reading a question into a plan came to: SQL, a clarifying question asked, or words it could not place. */
export type PlanOutcome =
  | { kind: 'compiled'; plan: QueryPlan; sql: string }
  | { kind: 'asked' }
  /** the plan path answered itself (state.answer): a block the data does not have, with the nearest it has */
  | { kind: 'told' }
  /** reason: why the reading stopped when every word was read ("There is no earlier answer…"), instead of the words left */
  | { kind: 'unread'; understood: string[]; unplaced: string[]; suggestion: string; reason?: string };
