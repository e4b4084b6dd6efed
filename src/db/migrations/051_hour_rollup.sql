-- An hour-of-the-day rollup over all crimes (issue 35, part 4): a question
-- with no type, place, arrest or domestic filter that reads the day and the
-- hour together ("crimes at night by day of the year", "between 8 and 13 on
-- weekends by month", a run of days with an hour range) read crimes whole:
-- the costliest shapes of the plan bench's random plans from crimes (no place
-- | day,hour and no place | hour,month,weekday: 12 of 200 at 8.5M, 0.25-2.7 s
-- each). No finer grain than the day kept the hour. This keeps every hour
-- with an incident: its `date` is the incident's hour (date_trunc('hour')),
-- from which the year, the month, the weekday, the day and the hour read as
-- from crimes. About 219K rows whatever the size (an hour of 25 years holds
-- some incident): 218K at 2M.
-- Same contract as 027: crimes' column names, `n` incidents per group, exact,
-- kept by the statement triggers (they read the crime_rollups catalog;
-- crime_rollup_date's ELSE date_trunc(grain, t) is this grain's date) and the
-- ingest's batch merge (driven by src/db/rollups.ts).
ALTER TABLE crime_rollups DROP CONSTRAINT crime_rollups_grain_check;
ALTER TABLE crime_rollups ADD CONSTRAINT crime_rollups_grain_check
  CHECK (grain IN ('hour', 'day', 'month', 'month_hour', 'year', 'year_hour', 'year_weekday_hour', 'all'));

INSERT INTO crime_rollups (name, grain, columns) VALUES ('crimes_by_hour', 'hour', ARRAY['year']);

CREATE TABLE crimes_by_hour (
  date timestamp NOT NULL, year integer,
  n integer NOT NULL
);
COMMENT ON TABLE crimes_by_hour IS 'Incidents (n) per hour (date = the hour), year: exact, kept by triggers on crimes.';

-- the group key (`n` in no index, room on each page: adding to a count is a HOT update)
ALTER TABLE crimes_by_hour SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_hour_key ON crimes_by_hour (date, year) NULLS NOT DISTINCT;

-- a year's hours ("crimes by weekday in 2020"): the key leads with the date, a whole year is a range of it, but
-- the compiler and model SQL name the year column
CREATE INDEX IF NOT EXISTS crimes_by_hour_year ON crimes_by_hour (year);

-- the rows already loaded: no rollup keeps the hour with the day, so counted from crimes (one scan), in key order
INSERT INTO crimes_by_hour (date, year, n)
  SELECT crime_rollup_date('hour', date), year, count(*) FROM crimes GROUP BY 1, 2 ORDER BY 1, 2;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON crimes_by_hour TO datadesk_reader;
  END IF;
END
$$;
