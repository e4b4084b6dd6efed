-- A question about one place ("How many crimes were reported in Austin in
-- 2019?", "in district 11", "in ward 28", "at a residence") is answered from
-- the rollup of that kind of place (036), whose key leads with the type:
-- without a type it read the whole rollup, 142K rows of crimes_by_year_area at
-- 8.5M (e16 38 ms, e12 23 ms at 2M warm). An index on the place and the year
-- reads that place's rows only. Same for a place with a month or a location
-- with months (crimes_by_month_location), and a beat (crimes_by_year_beat).
-- `n` stays out of every index, so adding to a count is still a HOT update.
CREATE INDEX IF NOT EXISTS crimes_by_year_area_place ON crimes_by_year_area (community_area, year);
CREATE INDEX IF NOT EXISTS crimes_by_year_district_place ON crimes_by_year_district (district, year);
CREATE INDEX IF NOT EXISTS crimes_by_year_ward_place ON crimes_by_year_ward (ward, year);
CREATE INDEX IF NOT EXISTS crimes_by_year_location_place ON crimes_by_year_location (location_description, year);
CREATE INDEX IF NOT EXISTS crimes_by_month_location_place ON crimes_by_month_location (location_description, year);
CREATE INDEX IF NOT EXISTS crimes_by_year_beat_place ON crimes_by_year_beat (beat, year);
