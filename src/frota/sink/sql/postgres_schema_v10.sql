-- Version 10 (DuckDB: schema_v10.sql): speed_cells and speed_lines count the segments over
-- their mode's plausible top speed (rule max_segment_speed_kmh.<mode>) apart, in
-- implausible_segments, instead of summing them; rows written before it summed every
-- segment: 0. A database that already held results records the rule as rule 6's limit.

ALTER TABLE speed_cells ADD COLUMN implausible_segments bigint NOT NULL DEFAULT 0;
ALTER TABLE speed_cells ALTER COLUMN implausible_segments DROP DEFAULT;
ALTER TABLE speed_lines ADD COLUMN implausible_segments bigint NOT NULL DEFAULT 0;
ALTER TABLE speed_lines ALTER COLUMN implausible_segments DROP DEFAULT;

INSERT INTO rules
SELECT replace(key, 'max_speed_kmh.', 'max_segment_speed_kmh.'), value FROM rules
WHERE key LIKE 'max_speed_kmh.%';

-- trips.plan_slot: whether the trip is a schedule slot of the static GTFS (DuckDB:
-- schema_v10.sql); NULL without one and for trips written before it.
ALTER TABLE trips ADD COLUMN plan_slot boolean;
