-- Version 4: stops and trips without primary keys. Each epoch's rows commit in one
-- transaction with the epoch's checkpoint, so a stop or trip is written exactly once
-- without a key to say so; the keys' ART indexes only made every commit check it again
-- (compound keys of texts: on the simulated Rio day the index inserts were two thirds of
-- DuckDB's COMMIT and 6 % of the sink's thread). The rows stay, in the order they were
-- written. PostgreSQL keeps its keys: several processes upsert into it.

CREATE TABLE stops_v4 (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  start_time TIMESTAMP NOT NULL,
  mode VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  end_time TIMESTAMP NOT NULL,
  anchor_lat DOUBLE NOT NULL,
  anchor_lon DOUBLE NOT NULL,
  positions BIGINT NOT NULL,
  near_terminal BOOLEAN
);

INSERT INTO stops_v4
SELECT feed_id, vehicle_id, start_time, mode, route_id, end_time, anchor_lat, anchor_lon,
       positions, near_terminal
FROM stops
ORDER BY rowid;

DROP TABLE stops;
ALTER TABLE stops_v4 RENAME TO stops;

CREATE TABLE trips_v4 (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  trip_id VARCHAR NOT NULL,
  trip_start_date VARCHAR NOT NULL,
  first_time TIMESTAMP NOT NULL,
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  trip_start_time VARCHAR NOT NULL,
  first_lat DOUBLE NOT NULL,
  first_lon DOUBLE NOT NULL,
  last_time TIMESTAMP NOT NULL,
  last_lat DOUBLE NOT NULL,
  last_lon DOUBLE NOT NULL,
  positions BIGINT NOT NULL,
  distance_mm BIGINT NOT NULL
);

INSERT INTO trips_v4
SELECT feed_id, vehicle_id, trip_id, trip_start_date, first_time, route_id, direction_id,
       trip_start_time, first_lat, first_lon, last_time, last_lat, last_lon, positions,
       distance_mm
FROM trips
ORDER BY rowid;

DROP TABLE trips;
ALTER TABLE trips_v4 RENAME TO trips;
