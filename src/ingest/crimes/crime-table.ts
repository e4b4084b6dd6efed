// The crimes table as the ingesters see it: column order, key, and the rule
// that a row with a newer updated_on replaces the stored one.
import type { TableSpec } from '../table-spec.js';
import { CRIME_ROLLUPS_UPKEEP } from './rollup-upkeep.js';

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
