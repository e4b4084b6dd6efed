-- Two more coarse rollups (issue 35, part 4): a month-of-year or hour-of-day
-- question over all years ("robberies by hour of day", "thefts per month in
-- 2019") read crimes_by_month_location (308K rows at 8.5M) or
-- crimes_by_month_hour (437K): the same counts without the location, or with
-- the hour kept in the year's first day, are tens of thousands. Same contract
-- as 027 and 036; listed in src/db/rollups.ts.

INSERT INTO crime_rollups (name, grain, columns) VALUES
  ('crimes_by_month', 'month', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic']),
  ('crimes_by_year_hour', 'year_hour', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic']);

CREATE TABLE crimes_by_month (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_hour (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  n integer NOT NULL
);
COMMENT ON TABLE crimes_by_month IS 'Incidents (n) per month, year, type, FBI code, arrest and domestic: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_hour IS 'Incidents (n) per year and hour of day (date = the year''s first day at that hour), type, FBI code, arrest and domestic: exact, kept by triggers on crimes.';

ALTER TABLE crimes_by_month SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_month_key ON crimes_by_month (primary_type, date, year, fbi_code, arrest, domestic) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_hour SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_hour_key ON crimes_by_year_hour (primary_type, date, year, fbi_code, arrest, domestic) NULLS NOT DISTINCT;

-- the rows already loaded, summed up from the finer rollups that hold them exactly
INSERT INTO crimes_by_month (date, year, primary_type, fbi_code, arrest, domestic, n)
  SELECT date, year, primary_type, fbi_code, arrest, domestic, sum(n) FROM crimes_by_month_location GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO crimes_by_year_hour (date, year, primary_type, fbi_code, arrest, domestic, n)
  SELECT crime_rollup_date('year_hour', date), year, primary_type, fbi_code, arrest, domestic, sum(n)
  FROM crimes_by_month_hour GROUP BY 1, 2, 3, 4, 5, 6;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON crimes_by_month, crimes_by_year_hour TO datadesk_reader;
  END IF;
END
$$;
