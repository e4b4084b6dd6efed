-- Coarse rollups (issue 35, part 4): a question over all years or all places
-- read a whole 300K-1M-row rollup of migration 027 ("distribution of crimes by
-- location description" 150-176 ms, "share of narcotics cases that ended in an
-- arrest" 64-70 ms at 8.5M rows). These keep the year and one kind of place
-- (or none) with the common facets, so such a question reads a few thousand
-- to a few tens of thousands of rows. Chosen from the shapes random plans ask
-- (test/plan/rollups-differential.test.ts; the sql bench prints the figure).
-- Same contract as 027: crimes' column names, `n` incidents per group, exact,
-- kept by the same statement triggers (they read the crime_rollups catalog),
-- listed in src/db/rollups.ts (test/db/rollups.test.ts checks both agree).
-- The group key leads with primary_type: most questions name a type.

INSERT INTO crime_rollups (name, grain, columns) VALUES
  ('crimes_by_year_type', 'year', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic']),
  ('crimes_by_year_district', 'year', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic', 'district']),
  ('crimes_by_year_ward', 'year', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic', 'ward']),
  ('crimes_by_year_area', 'year', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic', 'community_area']),
  ('crimes_by_year_location', 'year', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic', 'location_description']);

CREATE TABLE crimes_by_year_type (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_district (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  district integer,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_ward (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  ward integer,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_area (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  community_area integer,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_location (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  location_description text,
  n integer NOT NULL
);

COMMENT ON TABLE crimes_by_year_type IS 'Incidents (n) per year, type, FBI code, arrest and domestic: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_district IS 'Incidents (n) per year, type, FBI code, arrest, domestic and district: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_ward IS 'Incidents (n) per year, type, FBI code, arrest, domestic and ward: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_area IS 'Incidents (n) per year, type, FBI code, arrest, domestic and community area: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_location IS 'Incidents (n) per year, type, FBI code, arrest, domestic and location description: exact, kept by triggers on crimes.';

-- the group keys (`n` in no index, room on each page: adding to a count is a HOT update, as in 027)
ALTER TABLE crimes_by_year_type SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_type_key ON crimes_by_year_type (primary_type, date, year, fbi_code, arrest, domestic) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_district SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_district_key ON crimes_by_year_district (primary_type, date, year, fbi_code, arrest, domestic, district) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_ward SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_ward_key ON crimes_by_year_ward (primary_type, date, year, fbi_code, arrest, domestic, ward) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_area SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_area_key ON crimes_by_year_area (primary_type, date, year, fbi_code, arrest, domestic, community_area) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_location SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_location_key ON crimes_by_year_location (primary_type, date, year, fbi_code, arrest, domestic, location_description) NULLS NOT DISTINCT;

-- The rows already loaded, counted once from the smallest finer rollup that holds each (not from crimes:
-- at 8.5M rows each would be a whole scan): the year-place rollups sum up into the new ones exactly.
INSERT INTO crimes_by_year_type (date, year, primary_type, fbi_code, arrest, domestic, n)
  SELECT date_trunc('year', date), year, primary_type, fbi_code, arrest, domestic, sum(n) FROM crimes_by_year_place GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO crimes_by_year_district (date, year, primary_type, fbi_code, arrest, domestic, district, n)
  SELECT date, year, primary_type, fbi_code, arrest, domestic, district, sum(n) FROM crimes_by_year_place GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO crimes_by_year_ward (date, year, primary_type, fbi_code, arrest, domestic, ward, n)
  SELECT date, year, primary_type, fbi_code, arrest, domestic, ward, sum(n) FROM crimes_by_year_place GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO crimes_by_year_area (date, year, primary_type, fbi_code, arrest, domestic, community_area, n)
  SELECT date, year, primary_type, fbi_code, arrest, domestic, community_area, sum(n) FROM crimes_by_year_place GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO crimes_by_year_location (date, year, primary_type, fbi_code, arrest, domestic, location_description, n)
  SELECT date_trunc('year', date), year, primary_type, fbi_code, arrest, domestic, location_description, sum(n)
  FROM crimes_by_month_location GROUP BY 1, 2, 3, 4, 5, 6, 7;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON crimes_by_year_type, crimes_by_year_district, crimes_by_year_ward, crimes_by_year_area, crimes_by_year_location TO datadesk_reader;
  END IF;
END
$$;
