-- Migration to version 5: the regularity jobs' tables (regularity::Stream), as in the
-- DuckDB schema version 7. Departures and headways are written once each (their natural
-- keys make a repeated row a no-op); an alert is upserted by alert_id, so the row that
-- closes it replaces the one that raised it.
CREATE TABLE departures (
  feed_id text NOT NULL,
  vehicle_id text NOT NULL,
  feed_route_id text NOT NULL,
  route_id text NOT NULL,
  direction_id smallint,
  trip_id text NOT NULL,
  shape_id text NOT NULL,
  service_date date NOT NULL,
  departure_time timestamp NOT NULL,
  inferred boolean NOT NULL,
  distance_m double precision NOT NULL,
  tagged_late boolean NOT NULL,
  unplanned boolean NOT NULL,
  day_type text NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  PRIMARY KEY (feed_id, vehicle_id, departure_time)
);

CREATE TABLE headways (
  route_id text NOT NULL,
  direction_id smallint,
  service_date date NOT NULL,
  day_type text NOT NULL,
  departure_time timestamp NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  vehicle_id text NOT NULL,
  inferred boolean NOT NULL,
  headway_s double precision,
  planned_headway_s double precision,
  exclusion text,
  PRIMARY KEY (route_id, service_date, departure_time, vehicle_id)
);

CREATE TABLE alerts (
  alert_id text NOT NULL PRIMARY KEY,
  kind text NOT NULL,
  feed_id text NOT NULL,
  route_id text NOT NULL,
  direction_id smallint,
  service_date date,
  start_time timestamp NOT NULL,
  end_time timestamp,
  raised_at timestamp NOT NULL,
  closed_at timestamp,
  planned_headway_s double precision,
  actual_headway_s double precision,
  vehicles text NOT NULL
);
