-- Pre-aggregated counts of crimes (issue 22), chosen by the plan compiler
-- (src/plan/rollup-choice.ts) when every part of a question is inside one.
-- Each rollup keeps crimes' own column names, with `date` truncated to the
-- rollup's grain and `n` the incidents of the group, so the SQL the compiler
-- writes against it reads like the SQL against crimes (sum(n) for count(*)).
--
-- Sizes at 8.5M generated rows (generate --rows 8500000): by_day 532K rows,
-- by_month_hour 437K, by_month_location 308K, by_year_place 410K, by_year_beat
-- 407K, by_year_hour_place 1.0M, by_block 151K (of all time: a year's blocks are
-- a quick index read of crimes, all years' were the slowest question left).
--
-- Exact by construction: statement-level triggers on crimes add the counts of
-- inserted rows and subtract those of deleted and replaced rows, in the same
-- statement, so every writer (CSV ingest, SODA sync, a psql session) keeps
-- them true in its own transaction; a group whose count reaches 0 is deleted,
-- so a rollup has a row exactly where crimes has an incident (count(DISTINCT
-- ...) over it is exact). `n` has no CHECK (n >= 0): PostgreSQL checks the
-- row an INSERT ... ON CONFLICT proposes (a negative delta) before it finds
-- the conflict; test/db/rollups.test.ts counts crimes afresh instead. The catalog below is what the trigger reads; its
-- rows mirror src/db/rollups.ts, which the compiler reads (a test checks both).

CREATE TABLE crime_rollups (
  name    text PRIMARY KEY,
  -- how `date` is truncated: day, month, year, or month_hour / year_hour (the
  -- month's or year's first day at the incident's hour: the month and the hour
  -- of day read from it as from crimes); `all`: no date column, all time
  grain   text NOT NULL CHECK (grain IN ('day', 'month', 'month_hour', 'year', 'year_hour', 'all')),
  columns text[] NOT NULL
);

INSERT INTO crime_rollups (name, grain, columns) VALUES
  ('crimes_by_day', 'day', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic']),
  ('crimes_by_month_hour', 'month_hour', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic']),
  ('crimes_by_month_location', 'month', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic', 'location_description']),
  ('crimes_by_year_place', 'year', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic', 'community_area', 'district', 'ward']),
  ('crimes_by_year_beat', 'year', ARRAY['year', 'primary_type', 'fbi_code', 'arrest', 'domestic', 'beat', 'district']),
  ('crimes_by_year_hour_place', 'year_hour', ARRAY['year', 'primary_type', 'community_area', 'district']),
  ('crimes_by_block', 'all', ARRAY['primary_type', 'block']);

CREATE TABLE crimes_by_day (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  n integer NOT NULL
);
CREATE TABLE crimes_by_month_hour (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  n integer NOT NULL
);
CREATE TABLE crimes_by_month_location (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  location_description text,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_place (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  community_area integer, district integer, ward integer,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_beat (
  date timestamp NOT NULL, year integer, primary_type text, fbi_code text, arrest boolean, domestic boolean,
  beat integer, district integer,
  n integer NOT NULL
);
CREATE TABLE crimes_by_block (
  primary_type text, block text,
  n integer NOT NULL
);
CREATE TABLE crimes_by_year_hour_place (
  date timestamp NOT NULL, year integer, primary_type text, community_area integer, district integer,
  n integer NOT NULL
);

COMMENT ON TABLE crimes_by_day IS 'Incidents (n) per day, year, type, FBI code, arrest and domestic: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_month_hour IS 'Incidents (n) per month and hour of day (date = the month''s first day at that hour), year, type, FBI code, arrest and domestic: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_month_location IS 'Incidents (n) per month, year, type, FBI code, arrest, domestic and location description: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_place IS 'Incidents (n) per year, type, FBI code, arrest, domestic, community area, district and ward: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_block IS 'Incidents (n) of all time per type and block: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_hour_place IS 'Incidents (n) per year and hour of day (date = the year''s first day at that hour), type, community area and district: exact, kept by triggers on crimes.';
COMMENT ON TABLE crimes_by_year_beat IS 'Incidents (n) per year, type, FBI code, arrest, domestic, beat and district: exact, kept by triggers on crimes.';

-- The groups' keys (NULL is a key like any other: an unrecorded ward is a group) and
-- the year questions' index. `n` is in no index, and each page keeps room, so that
-- adding to a count is a HOT update that writes no index entry (an ingest batch
-- adds to tens of thousands of groups).
ALTER TABLE crimes_by_day SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_day_key ON crimes_by_day (date, year, primary_type, fbi_code, arrest, domestic) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_month_hour SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_month_hour_key ON crimes_by_month_hour (date, year, primary_type, fbi_code, arrest, domestic) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_month_location SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_month_location_key ON crimes_by_month_location (date, year, primary_type, fbi_code, arrest, domestic, location_description) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_place SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_place_key ON crimes_by_year_place (date, year, primary_type, fbi_code, arrest, domestic, community_area, district, ward) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_beat SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_beat_key ON crimes_by_year_beat (date, year, primary_type, fbi_code, arrest, domestic, beat, district) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_block SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_block_key ON crimes_by_block (primary_type, block) NULLS NOT DISTINCT;
ALTER TABLE crimes_by_year_hour_place SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_year_hour_place_key ON crimes_by_year_hour_place (date, year, primary_type, community_area, district) NULLS NOT DISTINCT;
CREATE INDEX crimes_by_day_year ON crimes_by_day (year, primary_type);
CREATE INDEX crimes_by_month_hour_year ON crimes_by_month_hour (year, primary_type);
CREATE INDEX crimes_by_month_location_year ON crimes_by_month_location (year, primary_type);
CREATE INDEX crimes_by_year_place_year ON crimes_by_year_place (year, primary_type);
CREATE INDEX crimes_by_year_beat_year ON crimes_by_year_beat (year, primary_type);
CREATE INDEX crimes_by_year_hour_place_year ON crimes_by_year_hour_place (year, primary_type);

-- The grain's `date` of a crime's timestamp.
CREATE FUNCTION crime_rollup_date(grain text, t timestamp) RETURNS timestamp
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE grain
    WHEN 'month_hour' THEN date_trunc('month', t) + make_interval(hours => extract(hour FROM t)::int)
    WHEN 'year_hour' THEN date_trunc('year', t) + make_interval(hours => extract(hour FROM t)::int)
    ELSE date_trunc(grain, t)
  END
$$;

-- A rollup's group key, as its columns and as computed from a crimes row: the
-- grain's date (none for all time), then the columns.
CREATE FUNCTION crime_rollup_key(grain text, columns text[]) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_to_string(CASE WHEN grain = 'all' THEN columns ELSE ARRAY['date'] || columns END, ', ')
$$;
CREATE FUNCTION crime_rollup_key_of_crime(grain text, columns text[]) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_to_string(CASE WHEN grain = 'all' THEN columns
                              ELSE ARRAY[format('public.crime_rollup_date(%L, date)', grain)] || columns END, ', ')
$$;

-- Counts every rollup afresh from crimes: the rows already there when this
-- migration runs, and a rebuild (the ingest benchmark times one).
CREATE FUNCTION crime_rollups_rebuild() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT name, public.crime_rollup_key(grain, columns) AS keys, public.crime_rollup_key_of_crime(grain, columns) AS cols
           FROM public.crime_rollups LOOP
    EXECUTE format('TRUNCATE public.%I', r.name);
    EXECUTE format('INSERT INTO public.%1$I (%2$s, n) SELECT %3$s, count(*) FROM public.crimes GROUP BY %3$s', r.name, r.keys, r.cols);
  END LOOP;
END
$$;

-- Adds a change of crimes to every rollup: +1 per new row, -1 per old one, in
-- the statement that made it (new_rows and old_rows are its transition tables).
CREATE FUNCTION crime_rollups_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, * FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, * FROM old_rows'
    ELSE 'SELECT 1 AS sign, * FROM new_rows UNION ALL SELECT -1 AS sign, * FROM old_rows'
  END;
  r record;
  emptied tid[];
BEGIN
  FOR r IN SELECT name, public.crime_rollup_key(grain, columns) AS keys, public.crime_rollup_key_of_crime(grain, columns) AS cols
           FROM public.crime_rollups LOOP
    -- the groups a removal brought to 0 come back by their row address, and are deleted
    EXECUTE format(
      'WITH changed AS (
         INSERT INTO public.%1$I AS r (%2$s, n)
         SELECT %3$s, sum(sign) FROM (%4$s) c
         GROUP BY %3$s HAVING sum(sign) <> 0
         ON CONFLICT (%2$s) DO UPDATE SET n = r.n + excluded.n
         RETURNING ctid, n
       ) SELECT array_agg(ctid) FILTER (WHERE n = 0) FROM changed',
      r.name, r.keys, r.cols, changed) INTO emptied;
    IF emptied IS NOT NULL THEN
      EXECUTE format('DELETE FROM public.%I WHERE ctid = ANY($1)', r.name) USING emptied;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

CREATE FUNCTION crime_rollups_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT name FROM public.crime_rollups LOOP
    EXECUTE format('TRUNCATE public.%I', r.name);
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER crimes_rollups_insert AFTER INSERT ON crimes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crime_rollups_apply();
CREATE TRIGGER crimes_rollups_update AFTER UPDATE ON crimes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crime_rollups_apply();
CREATE TRIGGER crimes_rollups_delete AFTER DELETE ON crimes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION crime_rollups_apply();
CREATE TRIGGER crimes_rollups_truncate AFTER TRUNCATE ON crimes
  FOR EACH STATEMENT EXECUTE FUNCTION crime_rollups_truncate();

-- The rows already loaded.
SELECT crime_rollups_rebuild();

-- Only the owner keeps the rollups: nobody else runs their functions (the SQL guard's
-- allowlist names none of them either; this is the wall behind it).
REVOKE EXECUTE ON FUNCTION crime_rollups_rebuild(), crime_rollups_apply(), crime_rollups_truncate(),
  crime_rollup_key(text, text[]), crime_rollup_key_of_crime(text, text[]) FROM PUBLIC;

-- The reader reads them like crimes (the login reader gets its grants from the SQL allowlist).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON crimes_by_day, crimes_by_month_hour, crimes_by_month_location, crimes_by_year_place, crimes_by_year_beat, crimes_by_year_hour_place, crimes_by_block TO datadesk_reader;
  END IF;
END
$$;
