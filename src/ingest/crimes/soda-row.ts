// One record of the portal's SODA API (JSON; numbers arrive as strings,
// `location` as GeoJSON) -> the crimes table's 22 values, the same values the
// CSV export gives for that incident.
import { toCopyLine } from '../copy-text.js';
import type { RowResult } from '../csv-ingest.js';
import { FieldError, booleanField, integerField, isoTimestampField, numberField, textField } from '../field-parsers.js';

export type SodaRecord = Record<string, unknown>;

const text = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** The CSV export's `(lat, lon)` text for a GeoJSON point or the older {latitude, longitude} object. */
function locationText(record: SodaRecord): string | null {
  const lat = text(record.latitude);
  const lon = text(record.longitude);
  const loc = record.location as { type?: string; coordinates?: unknown[]; latitude?: unknown; longitude?: unknown } | undefined;
  if (!loc || typeof loc !== 'object') return null;
  if (lat && lon) return `(${lat}, ${lon})`;
  if (loc.type === 'Point' && Array.isArray(loc.coordinates) && loc.coordinates.length === 2) {
    return `(${loc.coordinates[1]}, ${loc.coordinates[0]})`;
  }
  if (loc.latitude !== undefined && loc.longitude !== undefined) return `(${loc.latitude}, ${loc.longitude})`;
  return null;
}

export function parseSodaRecord(r: SodaRecord): RowResult {
  try {
    const id = integerField('id', text(r.id), true)!;
    const values = toCopyLine([
      id,
      textField('case_number', text(r.case_number)),
      isoTimestampField('date', r.date, true),
      textField('block', text(r.block)),
      textField('iucr', text(r.iucr)),
      textField('primary_type', text(r.primary_type)),
      textField('description', text(r.description)),
      textField('location_description', text(r.location_description)),
      booleanField('arrest', typeof r.arrest === 'boolean' ? r.arrest : text(r.arrest)),
      booleanField('domestic', typeof r.domestic === 'boolean' ? r.domestic : text(r.domestic)),
      integerField('beat', text(r.beat)),
      integerField('district', text(r.district)),
      integerField('ward', text(r.ward)),
      integerField('community_area', text(r.community_area)),
      textField('fbi_code', text(r.fbi_code)),
      numberField('x_coordinate', text(r.x_coordinate)),
      numberField('y_coordinate', text(r.y_coordinate)),
      integerField('year', text(r.year)),
      isoTimestampField('updated_on', r.updated_on),
      numberField('latitude', text(r.latitude), -90, 90),
      numberField('longitude', text(r.longitude), -180, 180),
      textField('location', locationText(r) ?? undefined),
    ]);
    return { values };
  } catch (error) {
    if (error instanceof FieldError) return { reason: error.message };
    throw error;
  }
}
