-- frota's tables, version 1 (docs/tables.md explains each; semantics.md defines them).
-- All *_time columns are UTC instants (TIMESTAMP without zone); local_date and hour are
-- in the feed's time zone. Sums are integers (millimetres, microseconds) so partial sums
-- from any number of partitions add up exactly; the *_totals views sum them.

CREATE TABLE positions (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  mode VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  trip_id VARCHAR NOT NULL,
  trip_start_date VARCHAR NOT NULL,
  trip_start_time VARCHAR NOT NULL,
  direction_id TINYINT,
  lat DOUBLE NOT NULL,
  lon DOUBLE NOT NULL,
  reported_speed_kmh REAL,
  bearing_deg REAL,
  altitude_m REAL,
  on_ground BOOLEAN,
  event_time TIMESTAMP NOT NULL,
  ingest_time TIMESTAMP NOT NULL,
  event_time_from_header BOOLEAN NOT NULL,
  source VARCHAR NOT NULL,
  source_offset BIGINT NOT NULL
);

CREATE TABLE rejected (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  reason VARCHAR NOT NULL,
  event_time TIMESTAMP,
  ingest_time TIMESTAMP,
  source VARCHAR NOT NULL,
  source_offset BIGINT NOT NULL,
  detail VARCHAR NOT NULL
);

CREATE TABLE speed_cells (
  partition_id INTEGER NOT NULL,
  mode VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  cell_x INTEGER NOT NULL,
  cell_y INTEGER NOT NULL,
  segments BIGINT NOT NULL,
  distance_mm BIGINT NOT NULL,
  duration_us BIGINT NOT NULL
);

CREATE TABLE speed_lines (
  partition_id INTEGER NOT NULL,
  mode VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  segments BIGINT NOT NULL,
  distance_mm BIGINT NOT NULL,
  duration_us BIGINT NOT NULL
);

CREATE TABLE fleet_hours (
  partition_id INTEGER NOT NULL,
  mode VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  vehicles BIGINT NOT NULL,
  positions BIGINT NOT NULL
);

CREATE TABLE stops (
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  start_time TIMESTAMP NOT NULL,
  mode VARCHAR NOT NULL,
  route_id VARCHAR NOT NULL,
  end_time TIMESTAMP NOT NULL,
  anchor_lat DOUBLE NOT NULL,
  anchor_lon DOUBLE NOT NULL,
  positions BIGINT NOT NULL,
  near_terminal BOOLEAN,
  PRIMARY KEY (feed_id, vehicle_id, start_time)
);

CREATE TABLE trips (
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
  distance_mm BIGINT NOT NULL,
  PRIMARY KEY (feed_id, vehicle_id, trip_id, trip_start_date, first_time)
);

-- One partition's counts for a feed and local hour. A (partition, feed, hour) may have
-- more than one row when refusals arrive after the hour was emitted; views add them up.
CREATE TABLE quality (
  partition_id INTEGER NOT NULL,
  feed_id VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  accepted BIGINT NOT NULL,
  vehicles BIGINT NOT NULL,
  missing_vehicle_id BIGINT NOT NULL,
  missing_coordinates BIGINT NOT NULL,
  latitude_out_of_range BIGINT NOT NULL,
  longitude_out_of_range BIGINT NOT NULL,
  null_island BIGINT NOT NULL,
  missing_timestamp BIGINT NOT NULL,
  timestamp_in_milliseconds BIGINT NOT NULL,
  state_vector_too_short BIGINT NOT NULL,
  malformed_record BIGINT NOT NULL,
  bad_payload BIGINT NOT NULL,
  future BIGINT NOT NULL,
  stale BIGINT NOT NULL,
  out_of_area BIGINT NOT NULL,
  duplicate BIGINT NOT NULL,
  jump BIGINT NOT NULL,
  late BIGINT NOT NULL
);

-- Histogram of ingest_time - event_time of accepted positions, 1 s buckets, -30..300 s.
CREATE TABLE quality_latency (
  partition_id INTEGER NOT NULL,
  feed_id VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  latency_s SMALLINT NOT NULL,
  positions BIGINT NOT NULL
);

-- Bookkeeping: the epoch ledger, where each source stands, and operator state.
CREATE TABLE batches (
  epoch BIGINT PRIMARY KEY,
  run_id VARCHAR NOT NULL,
  committed_at TIMESTAMP NOT NULL,
  watermark TIMESTAMP,
  positions BIGINT NOT NULL,
  rejected BIGINT NOT NULL,
  output_rows BIGINT NOT NULL
);

CREATE TABLE source_progress (
  source VARCHAR PRIMARY KEY,
  partition_id INTEGER NOT NULL,
  next_offset BIGINT NOT NULL,
  epoch BIGINT NOT NULL
);

CREATE TABLE engine_state (
  partition_id INTEGER PRIMARY KEY,
  epoch BIGINT NOT NULL,
  state BLOB NOT NULL
);

CREATE TABLE runner_state (
  id INTEGER PRIMARY KEY,
  epoch BIGINT NOT NULL,
  state BLOB NOT NULL
);
