-- Version 8: aircraft_positions, what an OpenSky state vector says of an accepted position
-- beyond the columns of `positions`: the aircraft's origin country and its last contact
-- (Unix seconds, as OpenSky gives them; semantics.md section 8). One row per accepted
-- aircraft position, keyed like positions (feed_id, vehicle_id, event_time: rule 5 leaves
-- one accepted position per key and event time), so that `positions` and every export of
-- a feed without aircraft stay as they were. Aircraft positions written before version 8
-- have no row here: their country and last contact are unknown.

CREATE TABLE aircraft_positions (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  event_time TIMESTAMP NOT NULL,
  origin_country VARCHAR,
  last_contact BIGINT
);
