-- Questions about a year ("How many crimes were reported in 2019?", "... by
-- month in 2019", any type in a year) filter on year first; no index led with
-- it, so at 8.5M rows each was a parallel sequential scan of the whole table
-- (1.17 s). (year, primary_type) serves a year alone and a year with a type;
-- with the visibility map set (VACUUM after a load) a count is an index-only scan.
CREATE INDEX IF NOT EXISTS crimes_year_type_idx ON crimes (year, primary_type);
