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
}
