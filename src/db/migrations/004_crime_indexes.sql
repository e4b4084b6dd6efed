-- Indexes chosen from the questions people ask (fixtures/benchmarks/index-queries.sql);
-- `npm run bench -- indexes` measures each query with and without them.

-- Date ranges ("last month", "in summer 2019", "since January") are in almost
-- every question; a B-tree on date turns them into range scans.
CREATE INDEX crimes_date_idx ON crimes (date);

-- "How many thefts in 2019", "homicides per year": type plus year, the most
-- common filter pair; year second so one index serves both "type" and "type and year".
CREATE INDEX crimes_type_year_idx ON crimes (primary_type, year);

-- Per-district questions ("district 11 last year") filter on district and then
-- a date range; date second so the range is read from the index.
CREATE INDEX crimes_district_date_idx ON crimes (district, date);

-- The same for community areas, which people name ("Austin", "the Loop").
CREATE INDEX crimes_community_area_date_idx ON crimes (community_area, date);
