-- frota's tables in PostgreSQL, version 1: the tables of schema_v1.sql (DuckDB) with the
-- natural keys that make every write an upsert (semantics.md sections 5 and 6), plus the
-- bookkeeping of the scale-out protocol (docs/scale-out.md).
-- *_time columns are UTC instants (timestamp without time zone); local_date and hour are
-- in the feed's zone. TINYINT columns of the DuckDB schema are smallint here.

-- Accepted positions. Rule 5 leaves at most one accepted position per key and event time,
-- so that is the natural key.
CREATE TABLE positions (
  feed_id text NOT NULL,
  vehicle_id text NOT NULL,
  mode text NOT NULL,
  route_id text NOT NULL,
  trip_id text NOT NULL,
  trip_start_date text NOT NULL,
  trip_start_time text NOT NULL,
  direction_id smallint,
  lat double precision NOT NULL,
  lon double precision NOT NULL,
  reported_speed_kmh real,
  bearing_deg real,
  altitude_m real,
  on_ground boolean,
  event_time timestamp NOT NULL,
  ingest_time timestamp NOT NULL,
  event_time_from_header boolean NOT NULL,
  source text NOT NULL,
  source_offset bigint NOT NULL,
  PRIMARY KEY (feed_id, vehicle_id, event_time)
);
-- Time-range scans (dashboards, "the last hour") stay cheap: BRIN costs almost nothing to
-- maintain on an append-mostly table ordered by time.
CREATE INDEX positions_event_time_brin ON positions USING brin (event_time);
-- No further index on positions: each one costs every insert of the hottest table, and
-- the per-vehicle key plus the time BRIN serve what frota itself reads (frota's readers
-- copy whole tables; see postgres_to_duckdb.h).

-- Refused records. No natural key: an input may hold the same record twice, and each
-- occurrence is a refusal counted in quality. Exactly once comes from the transaction
-- that commits the rows together with the source offsets, not from a key.
CREATE TABLE rejected (
  feed_id text NOT NULL,
  vehicle_id text NOT NULL,
  reason text NOT NULL,
  event_time timestamp,
  ingest_time timestamp,
  source text NOT NULL,
  source_offset bigint NOT NULL,
  detail text NOT NULL
);
CREATE INDEX rejected_feed_reason ON rejected (feed_id, reason);

-- Aggregates: one partition's partial sums per key. The upsert ADDS (see
-- docs/scale-out.md): two partial rows of one key merge into their sum, exactly what the
-- *_totals views (and DuckDB's) do with two rows.
CREATE TABLE speed_cells (
  partition_id integer NOT NULL,
  mode text NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  cell_x integer NOT NULL,
  cell_y integer NOT NULL,
  segments bigint NOT NULL,
  distance_mm bigint NOT NULL,
  duration_us bigint NOT NULL,
  PRIMARY KEY (partition_id, mode, local_date, hour, cell_x, cell_y)
);

CREATE TABLE speed_lines (
  partition_id integer NOT NULL,
  mode text NOT NULL,
  route_id text NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  segments bigint NOT NULL,
  distance_mm bigint NOT NULL,
  duration_us bigint NOT NULL,
  PRIMARY KEY (partition_id, mode, route_id, local_date, hour)
);

CREATE TABLE fleet_hours (
  partition_id integer NOT NULL,
  mode text NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  vehicles bigint NOT NULL,
  positions bigint NOT NULL,
  PRIMARY KEY (partition_id, mode, local_date, hour)
);

CREATE TABLE stops (
  feed_id text NOT NULL,
  vehicle_id text NOT NULL,
  start_time timestamp NOT NULL,
  mode text NOT NULL,
  route_id text NOT NULL,
  end_time timestamp NOT NULL,
  anchor_lat double precision NOT NULL,
  anchor_lon double precision NOT NULL,
  positions bigint NOT NULL,
  near_terminal boolean,
  PRIMARY KEY (feed_id, vehicle_id, start_time)
);
CREATE INDEX stops_route_time ON stops (route_id, start_time);

CREATE TABLE trips (
  feed_id text NOT NULL,
  vehicle_id text NOT NULL,
  trip_id text NOT NULL,
  trip_start_date text NOT NULL,
  first_time timestamp NOT NULL,
  route_id text NOT NULL,
  direction_id smallint,
  trip_start_time text NOT NULL,
  first_lat double precision NOT NULL,
  first_lon double precision NOT NULL,
  last_time timestamp NOT NULL,
  last_lat double precision NOT NULL,
  last_lon double precision NOT NULL,
  positions bigint NOT NULL,
  distance_mm bigint NOT NULL,
  PRIMARY KEY (feed_id, vehicle_id, trip_id, trip_start_date, first_time)
);
-- Headways: departures per GTFS trip and service date, and per route.
CREATE INDEX trips_trip_date ON trips (trip_id, trip_start_date);
CREATE INDEX trips_route_time ON trips (route_id, first_time);

CREATE TABLE quality (
  partition_id integer NOT NULL,
  feed_id text NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  accepted bigint NOT NULL,
  vehicles bigint NOT NULL,
  missing_vehicle_id bigint NOT NULL,
  missing_coordinates bigint NOT NULL,
  latitude_out_of_range bigint NOT NULL,
  longitude_out_of_range bigint NOT NULL,
  null_island bigint NOT NULL,
  missing_timestamp bigint NOT NULL,
  timestamp_in_milliseconds bigint NOT NULL,
  state_vector_too_short bigint NOT NULL,
  malformed_record bigint NOT NULL,
  bad_payload bigint NOT NULL,
  future bigint NOT NULL,
  stale bigint NOT NULL,
  out_of_area bigint NOT NULL,
  duplicate bigint NOT NULL,
  jump bigint NOT NULL,
  late bigint NOT NULL,
  PRIMARY KEY (partition_id, feed_id, local_date, hour)
);

CREATE TABLE quality_latency (
  partition_id integer NOT NULL,
  feed_id text NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  latency_s smallint NOT NULL,
  positions bigint NOT NULL,
  PRIMARY KEY (partition_id, feed_id, local_date, hour, latency_s)
);

-- Bookkeeping. One row per committed epoch of each process run.
CREATE TABLE batches (
  run_id text NOT NULL,
  epoch bigint NOT NULL,
  committed_at timestamp NOT NULL,
  watermark timestamp,
  records bigint NOT NULL,
  positions bigint NOT NULL,
  rejected bigint NOT NULL,
  output_rows bigint NOT NULL,
  stream text NOT NULL,
  partitions integer[] NOT NULL,
  PRIMARY KEY (run_id, epoch)
);

-- Where each source partition stands. `stream` is '' for an embedded replay's files and
-- the topic for Kafka (source = 'topic/partition'). `generation` grows by one at every
-- commit that carries the row: the fence that refuses a commit from a process that
-- restored the partition before someone else committed it (docs/scale-out.md).
CREATE TABLE source_progress (
  source text PRIMARY KEY,
  stream text NOT NULL,
  partition_id integer NOT NULL,
  next_offset bigint NOT NULL,
  generation bigint NOT NULL,
  finished boolean NOT NULL,
  epoch bigint NOT NULL,
  run_id text NOT NULL
);
CREATE INDEX source_progress_stream ON source_progress (stream, partition_id);

-- Operator state per (stream, partition): for Kafka the partition's sealed state and
-- watermark progress, which moves with the partition.
CREATE TABLE engine_state (
  stream text NOT NULL,
  partition_id integer NOT NULL,
  epoch bigint NOT NULL,
  run_id text NOT NULL,
  state bytea NOT NULL,
  PRIMARY KEY (stream, partition_id)
);

-- The embedded replay's runner state (its watermark over all inputs); Kafka keeps none.
CREATE TABLE runner_state (
  id integer PRIMARY KEY,
  epoch bigint NOT NULL,
  run_id text NOT NULL,
  state bytea NOT NULL
);
