// The crimes table as the ingesters see it: column order, key, and the rule
// that a row with a newer updated_on replaces the stored one.
import { CRIME_COLUMNS } from '../../db/crime-columns.js';
import type { TableSpec } from '../table-spec.js';
import { CRIME_ROLLUPS_UPKEEP } from './rollup-upkeep.js';

// the columns in the table's order: one list, the database's (src/db/crime-columns.ts), read by the COPY too
export { CRIME_COLUMNS };

export const CRIMES_SPEC: TableSpec = {
  table: 'crimes',
  columns: CRIME_COLUMNS,
  key: ['id'],
  replaceWhen: 'excluded.updated_on > t.updated_on OR (t.updated_on IS NULL AND excluded.updated_on IS NOT NULL)',
  latestFirst: 'updated_on DESC NULLS LAST',
  derived: CRIME_ROLLUPS_UPKEEP,
};

/** The portal's CSV export header, in order. */
export const PORTAL_CSV_HEADER = [
  'ID',
  'Case Number',
  'Date',
  'Block',
  'IUCR',
  'Primary Type',
  'Description',
  'Location Description',
  'Arrest',
  'Domestic',
  'Beat',
  'District',
  'Ward',
  'Community Area',
  'FBI Code',
  'X Coordinate',
  'Y Coordinate',
  'Year',
  'Updated On',
  'Latitude',
  'Longitude',
  'Location',
] as const;
