// The crimes table's columns, in the table's order (migration 001): the facts
// the plan compiler and the aggregate navigator need about a crime row, and
// the order the ingester's COPY writes (src/ingest/crimes/crime-table.ts).
// test/db/crime-columns.test.ts checks them against the table.
export const CRIME_COLUMNS = [
  'id',
  'case_number',
  'date',
  'block',
  'iucr',
  'primary_type',
  'description',
  'location_description',
  'arrest',
  'domestic',
  'beat',
  'district',
  'ward',
  'community_area',
  'fbi_code',
  'x_coordinate',
  'y_coordinate',
  'year',
  'updated_on',
  'latitude',
  'longitude',
  'location',
] as const;
