-- An all-time rollup of places (issue 35, part 4): a question over all time
-- that crosses two kinds of place ("which community area has the fewest
-- beats", "distinct wards per district") or counts by a place ("thefts by
-- ward", "average per beat") read crimes whole or a year rollup of 140K-410K
-- rows at 8.5M. The slowest of 200 random plans (src/plan/random-plans.ts,
-- seed 35) was count(DISTINCT beat) per community area from crimes: 18.0 s at
-- 8.5M, 6.3 s at 2M. This keeps the type and the four kinds of place of all
-- time: 81K rows at 8.5M (58K at 2M), smaller than crimes_by_year_area (142K),
-- so the compiler takes it first for any such question without a period, an
-- arrest or a domestic filter (src/db/rollups.ts lists it by size).
-- Same contract as 027: crimes' column names, `n` incidents per group, exact,
-- kept by the statement triggers (they read the crime_rollups catalog) and the
-- ingest's batch merge (driven by src/db/rollups.ts).
INSERT INTO crime_rollups (name, grain, columns) VALUES
  ('crimes_by_place', 'all', ARRAY['primary_type', 'community_area', 'district', 'ward', 'beat']);

CREATE TABLE crimes_by_place (
  primary_type text, community_area integer, district integer, ward integer, beat integer,
  n integer NOT NULL
);
COMMENT ON TABLE crimes_by_place IS 'Incidents (n) of all time per type, community area, district, ward and beat: exact, kept by triggers on crimes.';

-- the group key, leading with the type as 036's (`n` in no index, room on each page: adding to a count is a HOT update)
ALTER TABLE crimes_by_place SET (fillfactor = 70);
CREATE UNIQUE INDEX crimes_by_place_key ON crimes_by_place (primary_type, community_area, district, ward, beat) NULLS NOT DISTINCT;

-- the rows already loaded: no rollup keeps the beat with the community area, so counted from crimes (one scan)
INSERT INTO crimes_by_place (primary_type, community_area, district, ward, beat, n)
  SELECT primary_type, community_area, district, ward, beat, count(*)
  FROM crimes GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON crimes_by_place TO datadesk_reader;
  END IF;
END
$$;
