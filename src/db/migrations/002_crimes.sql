-- The Chicago Data Portal's "Crimes - 2001 to Present" (ijzp-q8t2), its 22
-- columns in snake_case. `date` and `updated_on` are Chicago local time, kept
-- as timestamp without time zone exactly as the portal publishes them.
CREATE TABLE crimes (
  id                   integer PRIMARY KEY,
  case_number          text,
  date                 timestamp NOT NULL,
  block                text,
  iucr                 text,
  primary_type         text,
  description          text,
  location_description text,
  arrest               boolean,
  domestic             boolean,
  beat                 integer,
  district             integer,
  ward                 integer,
  community_area       integer,
  fbi_code             text,
  x_coordinate         double precision,
  y_coordinate         double precision,
  year                 integer,
  updated_on           timestamp,
  latitude             double precision,
  longitude            double precision,
  location             text
);

COMMENT ON TABLE crimes IS 'Reported crimes in Chicago since 2001, one row per incident (Chicago Data Portal ijzp-q8t2).';

CREATE TABLE community_areas (
  community_area integer PRIMARY KEY,
  name           text NOT NULL UNIQUE
);

COMMENT ON TABLE community_areas IS 'The 77 official community areas of Chicago; crimes.community_area refers to them.';

INSERT INTO community_areas (community_area, name) VALUES
  (1, 'Rogers Park'), (2, 'West Ridge'), (3, 'Uptown'), (4, 'Lincoln Square'), (5, 'North Center'),
  (6, 'Lakeview'), (7, 'Lincoln Park'), (8, 'Near North Side'), (9, 'Edison Park'), (10, 'Norwood Park'),
  (11, 'Jefferson Park'), (12, 'Forest Glen'), (13, 'North Park'), (14, 'Albany Park'), (15, 'Portage Park'),
  (16, 'Irving Park'), (17, 'Dunning'), (18, 'Montclare'), (19, 'Belmont Cragin'), (20, 'Hermosa'),
  (21, 'Avondale'), (22, 'Logan Square'), (23, 'Humboldt Park'), (24, 'West Town'), (25, 'Austin'),
  (26, 'West Garfield Park'), (27, 'East Garfield Park'), (28, 'Near West Side'), (29, 'North Lawndale'),
  (30, 'South Lawndale'), (31, 'Lower West Side'), (32, 'Loop'), (33, 'Near South Side'), (34, 'Armour Square'),
  (35, 'Douglas'), (36, 'Oakland'), (37, 'Fuller Park'), (38, 'Grand Boulevard'), (39, 'Kenwood'),
  (40, 'Washington Park'), (41, 'Hyde Park'), (42, 'Woodlawn'), (43, 'South Shore'), (44, 'Chatham'),
  (45, 'Avalon Park'), (46, 'South Chicago'), (47, 'Burnside'), (48, 'Calumet Heights'), (49, 'Roseland'),
  (50, 'Pullman'), (51, 'South Deering'), (52, 'East Side'), (53, 'West Pullman'), (54, 'Riverdale'),
  (55, 'Hegewisch'), (56, 'Garfield Ridge'), (57, 'Archer Heights'), (58, 'Brighton Park'), (59, 'McKinley Park'),
  (60, 'Bridgeport'), (61, 'New City'), (62, 'West Elsdon'), (63, 'Gage Park'), (64, 'Clearing'),
  (65, 'West Lawn'), (66, 'Chicago Lawn'), (67, 'West Englewood'), (68, 'Englewood'), (69, 'Greater Grand Crossing'),
  (70, 'Ashburn'), (71, 'Auburn Gresham'), (72, 'Beverly'), (73, 'Washington Heights'), (74, 'Mount Greenwood'),
  (75, 'Morgan Park'), (76, 'O''Hare'), (77, 'Edgewater');
