-- Version 10: speeds a planner trusts, and schedule slots only where the plan has them. A segment implying more than its mode's plausible top
-- speed (rule max_segment_speed_kmh.<mode>, 90 km/h for bus and BRT by default) is a GPS
-- glitch that rule 6 let through; it no longer enters speed_cells' and speed_lines' sums and
-- is counted in implausible_segments instead. The tables are made anew with the column (an
-- added column could not be NOT NULL); rows written before it summed every segment: 0.
-- A database that already held results records the rule as it was in effect for them:
-- rule 6's limit of each mode, which no accepted segment exceeded.

CREATE TABLE speed_cells_v10 (
  partition_id INTEGER NOT NULL,
  mode VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  cell_x INTEGER NOT NULL,
  cell_y INTEGER NOT NULL,
  segments BIGINT NOT NULL,
  distance_mm BIGINT NOT NULL,
  duration_us BIGINT NOT NULL,
  implausible_segments BIGINT NOT NULL
);
INSERT INTO speed_cells_v10
SELECT partition_id, mode, local_date, hour, cell_x, cell_y, segments, distance_mm, duration_us, 0
FROM speed_cells;
DROP TABLE speed_cells;
ALTER TABLE speed_cells_v10 RENAME TO speed_cells;

CREATE TABLE speed_lines_v10 (
  partition_id INTEGER NOT NULL,
  mode VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  segments BIGINT NOT NULL,
  distance_mm BIGINT NOT NULL,
  duration_us BIGINT NOT NULL,
  implausible_segments BIGINT NOT NULL
);
INSERT INTO speed_lines_v10
SELECT partition_id, mode, route_id, local_date, hour, segments, distance_mm, duration_us, 0
FROM speed_lines;
DROP TABLE speed_lines;
ALTER TABLE speed_lines_v10 RENAME TO speed_lines;

INSERT INTO rules
SELECT replace(key, 'max_speed_kmh.', 'max_segment_speed_kmh.'), value FROM rules
WHERE key LIKE 'max_speed_kmh.%';

-- Slots only where the plan has them: trips.plan_slot says whether the trip is a schedule
-- slot of the static GTFS (a scheduled trip; a frequency trip only with the feed's start
-- time); NULL without a GTFS, and for trips written before it (the duplicate_slots view
-- counts those as it always did).
ALTER TABLE trips ADD COLUMN plan_slot BOOLEAN;
