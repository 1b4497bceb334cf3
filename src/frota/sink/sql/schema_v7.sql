-- Version 7: the regularity jobs' tables (regularity::Stream; semantics §7,
-- docs/departures.md "Streaming"), written by a replay given a GTFS. `departures` and
-- `headways` have the columns `frota headways` writes (batch/sql/headways.sql), which
-- recomputes them in batch and says where they differ. `alerts` is one row per alert,
-- keyed by alert_id; an alert that closes later is written again whole (an upsert).

CREATE TABLE departures (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  feed_route_id VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  trip_id VARCHAR NOT NULL,
  shape_id VARCHAR NOT NULL,
  service_date DATE NOT NULL,
  departure_time TIMESTAMP NOT NULL,
  inferred BOOLEAN NOT NULL,
  distance_m DOUBLE NOT NULL,
  tagged_late BOOLEAN NOT NULL,
  unplanned BOOLEAN NOT NULL,
  day_type VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL
);

CREATE TABLE headways (
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  service_date DATE NOT NULL,
  day_type VARCHAR NOT NULL,
  departure_time TIMESTAMP NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  inferred BOOLEAN NOT NULL,
  headway_s DOUBLE,
  planned_headway_s DOUBLE,
  exclusion VARCHAR
);

CREATE TABLE alerts (
  alert_id VARCHAR NOT NULL PRIMARY KEY,
  kind VARCHAR NOT NULL,
  feed_id VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  direction_id TINYINT,
  service_date DATE,
  start_time TIMESTAMP NOT NULL,
  end_time TIMESTAMP,
  raised_at TIMESTAMP NOT NULL,
  closed_at TIMESTAMP,
  planned_headway_s DOUBLE,
  actual_headway_s DOUBLE,
  vehicles VARCHAR NOT NULL
);
