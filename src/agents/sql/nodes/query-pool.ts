// Which pool a candidate query runs on: the reader login's whenever there is
// one; without it, only SQL our own code wrote (compiled from a query plan, or
// a verified query) may run, on
// the app's pool in a READ ONLY transaction. Model-written SQL is then refused
// with the reason, and the answer ends here.
import type pg from 'pg';
import { makeAnswer } from '../../../core/answer.js';
import type { SqlState } from '../state.js';

/** The candidate is SQL our own code wrote (compiled from a plan), not the model's. */
export const isOwnSql = (state: SqlState): boolean => state.ownSql !== undefined && state.candidate === state.ownSql;

export function queryPool(state: SqlState): pg.Pool | undefined {
  if (state.deps.reader) return state.deps.reader;
  if (isOwnSql(state)) return state.deps.pool;
  state.answer = makeAnswer({
    kind: 'refusal',
    route: 'sql',
    trace: state.trace,
    reason: `I cannot run a query written by the language model here: ${state.deps.readerProblem ?? 'no read-only login is configured: give READ_DATABASE_URL a login with SELECT on the data tables only, or let the app create one (CREATEROLE)'}`,
    alternatives: ['Ask one of the verified question types, e.g. "How many thefts were reported in 2019?"'],
  });
  return undefined;
}
