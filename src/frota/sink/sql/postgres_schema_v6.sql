-- Migration to version 6: aircraft_positions, as in the DuckDB schema version 8: an
-- accepted aircraft position's origin country and last contact (Unix seconds), keyed like
-- positions, upserted on that key as positions are.
CREATE TABLE aircraft_positions (
  feed_id text NOT NULL,
  vehicle_id text NOT NULL,
  event_time timestamp NOT NULL,
  origin_country text,
  last_contact bigint,
  PRIMARY KEY (feed_id, vehicle_id, event_time)
);
