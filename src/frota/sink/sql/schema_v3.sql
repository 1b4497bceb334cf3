-- Version 3: fewer columns for DuckDB to append, the two kinds of silver rows that are
-- most numerous. Appending costs DuckDB about the same per value whatever the column
-- (statistics, distinct-count sketches, compression analysis), so a column that says
-- again what the row before said costs as much as one that says something new.
--
-- position_labels: what a position says about the vehicle besides where and when it was
-- (feed, vehicle, mode, route, trip, service date, start time, direction), each distinct
-- combination once; positions_data refers to it by `label`, 12 columns instead of 19. A
-- vehicle keeps its label for a whole trip. On the simulated Rio day (5 M positions)
-- appending the rows cost DuckDB 1.5 CPU seconds instead of 2.1.
--
-- duplicates_data: refused duplicates, without reason or detail. A duplicate's detail is
-- its event time (model::DuplicateDetail), so in rejected_data it was a NULL VARCHAR on
-- 96 % of the rows of the simulated Rio day, and appending that column cost DuckDB as
-- much as its six other columns together (string storage, dictionary analysis and
-- compression of NULLs). The `rejected` view (views_v1.sql) shows both tables as one.
-- rejected_data keeps every other refusal with its detail; rows written by version 2,
-- duplicates with a NULL detail among them, stay where they are and read the same.

CREATE TABLE position_labels (
  id INTEGER PRIMARY KEY,
  feed_id INTEGER NOT NULL,
  vehicle_id INTEGER NOT NULL,
  mode UTINYINT NOT NULL,
  route_id INTEGER NOT NULL,
  trip_id INTEGER NOT NULL,
  trip_start_date INTEGER NOT NULL,
  trip_start_time INTEGER NOT NULL,
  direction_id TINYINT
);

INSERT INTO position_labels
SELECT row_number() OVER (ORDER BY feed_id, vehicle_id, mode, route_id, trip_id,
                                   trip_start_date, trip_start_time, direction_id),
       feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date, trip_start_time,
       direction_id
FROM (SELECT DISTINCT feed_id, vehicle_id, mode, route_id, trip_id, trip_start_date,
                      trip_start_time, direction_id
      FROM positions_data);

ALTER TABLE positions_data RENAME TO positions_data_v2;

CREATE TABLE positions_data (
  label INTEGER NOT NULL,
  lat DOUBLE NOT NULL,
  lon DOUBLE NOT NULL,
  reported_speed_kmh REAL,
  bearing_deg REAL,
  altitude_m REAL,
  on_ground BOOLEAN,
  event_time TIMESTAMP NOT NULL,
  ingest_time TIMESTAMP NOT NULL,
  event_time_from_header BOOLEAN NOT NULL,
  source INTEGER NOT NULL,
  source_offset BIGINT NOT NULL
);

INSERT INTO positions_data
SELECT l.id, p.lat, p.lon, p.reported_speed_kmh, p.bearing_deg, p.altitude_m, p.on_ground,
       p.event_time, p.ingest_time, p.event_time_from_header, p.source, p.source_offset
FROM positions_data_v2 p
JOIN position_labels l
  ON l.feed_id = p.feed_id AND l.vehicle_id = p.vehicle_id AND l.mode = p.mode
 AND l.route_id = p.route_id AND l.trip_id = p.trip_id
 AND l.trip_start_date = p.trip_start_date AND l.trip_start_time = p.trip_start_time
 AND l.direction_id IS NOT DISTINCT FROM p.direction_id
ORDER BY p.rowid;

DROP TABLE positions_data_v2;

CREATE TABLE duplicates_data (
  feed_id INTEGER NOT NULL,
  vehicle_id INTEGER NOT NULL,
  event_time TIMESTAMP NOT NULL,
  ingest_time TIMESTAMP,
  source INTEGER NOT NULL,
  source_offset BIGINT NOT NULL
);
