export interface ReadContext {
  /** latest and earliest date in the data, YYYY-MM-DD: relative dates resolve against the latest */
  latestDate: string;
  earliestDate: string;
  /** community area names (lower case) -> number, from the database (77) */
  areas: ReadonlyMap<string, number>;
}
