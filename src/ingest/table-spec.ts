import type pg from 'pg';
// How rows of one source land in one table: the columns, the key that makes a
// row unique, and when an incoming row replaces the stored one.
export interface TableSpec {
  table: string;
  columns: readonly string[];
  key: readonly string[];
  /** SQL over `t` (stored row) and `excluded` (incoming row): replace only when true. */
  replaceWhen: string;
  /** ORDER BY terms that put the winning row first among duplicates of one batch. */
  latestFirst: string;
  /** SQL run after a load that changed rows (e.g. refreshing a derived view) */
  afterLoad?: string;
  /** Tables counted from this one (crimes' rollups), which a batch keeps exact set-based. */
  derived?: DerivedTables;
}

/**
 * Tables kept from the target by statement triggers on it, exact for every writer. A batch
 * bypasses those triggers inside its own transaction (they would copy every changed row into
 * transition tables and aggregate them again) and adds its change to each table once:
 * `delta` holds +1 per new row version and -1 per replaced one, in `columns`.
 */
export interface DerivedTables {
  /** the trigger function that keeps them on other writes; the batch disables the triggers that call it */
  triggerFunction: string;
  /** the target's columns the derived tables are counted from */
  columns: readonly string[];
  /**
   * The statements that add `delta`'s counts to the derived tables, read in the merge's transaction
   * through `client`. Each returns one row whose column `e<i>` holds the tids (tid[] as text, or
   * null) of the groups of `tables[i]` it brought to 0.
   */
  merges(client: Queryable, delta: string): Promise<DerivedMerge[]>;
}

export interface DerivedMerge {
  tables: string[];
  sql: string;
}

/** What the merges read the database with: the merge's own connection. */
export type Queryable = Pick<pg.ClientBase, 'query'>;
