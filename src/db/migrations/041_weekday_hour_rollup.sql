-- A weekday-and-hour rollup (issue 35, part 4): a question that reads the
-- weekday and the hour together ("robberies by hour on weekends", "thefts at
-- night on Fridays", the glossary's weekend that starts on Friday evening) was
-- answered from crimes, the whole table when it named no year (1.3-1.5 s at
-- 1M rows): no rollup kept both. This one keeps them inside the year: its
-- `date` is the first day of the incident's year that falls on the incident's
-- weekday (one of 1-7 January), at the incident's hour, so the year, the ISO
-- weekday and the hour of day read from it as from crimes (the month does not:
-- src/db/rollups.ts GRAIN_FACETS says which facets each grain keeps).
-- Same contract as 027, 036 and 037: crimes' column names, `n` incidents per
-- group, exact, kept by the same statement triggers and the ingest's batch
-- merges (both read the catalog or ROLLUPS and compute the grain's date with
-- crime_rollup_date); listed in src/db/rollups.ts.

ALTER TABLE crime_rollups DROP CONSTRAINT crime_rollups_grain_check;
ALTER TABLE crime_rollups ADD CONSTRAINT crime_rollups_grain_check
  CHECK (grain IN ('day', 'month', 'month_hour', 'year', 'year_hour', 'year_weekday_hour', 'all'));

-- The grain's `date` of a crime's timestamp (027's, with year_weekday_hour).
CREATE OR REPLACE FUNCTION crime_rollup_date(grain text, t timestamp) RETURNS timestamp
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE grain
    WHEN 'month_hour' THEN date_trunc('month', t) + make_interval(hours => extract(hour FROM t)::int)
    WHEN 'year_hour' THEN date_trunc('year', t) + make_interval(hours => extract(hour FROM t)::int)
    WHEN 'year_weekday_hour' THEN date_trunc('year', t) + make_interval(
      days => (extract(isodow FROM t)::int - extract(isodow FROM date_trunc('year', t))::int + 7) % 7,
      hours => extract(hour FROM t)::int)
    ELSE date_trunc(grain, t)
  END
$$;

INSERT INTO crime_rollups (name, grain, columns) VALUES
  ('crimes_by_year_weekday_hour', 'year_weekday_hour', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic']);

CREATE TABLE crimes_by_year_weekday_hour (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  n integer NOT NULL
);
COMMENT ON TABLE crimes_by_year_weekday_hour IS 'Incidents (n) per year, weekday and hour of day (date = the first day of the year on that weekday, at that hour), type, FBI code, arrest and domestic: exact, kept by triggers on crimes.';

-- the group key, leading with the type as 036's (`n` in no index, room on each page: adding to a count is a HOT update)
ALTER TABLE crimes_by_year_weekday_hour SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_weekday_hour_key ON crimes_by_year_weekday_hour (primary_type, date, year, fbi_code, arrest, domestic) NULLS NOT DISTINCT;

-- the rows already loaded: no finer rollup keeps both the weekday and the hour, so counted from crimes (one scan)
INSERT INTO crimes_by_year_weekday_hour (date, year, primary_type, fbi_code, arrest, domestic, n)
  SELECT crime_rollup_date('year_weekday_hour', date), year, primary_type, fbi_code, arrest, domestic, count(*)
  FROM crimes GROUP BY 1, 2, 3, 4, 5, 6;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON crimes_by_year_weekday_hour TO datadesk_reader;
  END IF;
END
$$;
