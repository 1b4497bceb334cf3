-- What the batch recomputation starts from: every decoded input record, loaded in the
-- order the merged replay yields them (reconcile.cc appends these rows; nothing else is
-- computed in C++). Lives in the in-memory database of `frota reconcile`, never in the
-- stream's database.

-- One row per decoded position, in arrival order (`seq`). `vehicle_key` is a dense
-- integer id of (feed_id, vehicle_id) given while loading, so that the per-key windows
-- below sort integers instead of strings. `inside_area` is geo::Area::Contains(lat, lon)
-- computed while loading (the even-odd rule over every ring, the same code rule 4 uses);
-- NULL when no area is configured. Times are microseconds since the epoch, UTC.
CREATE TABLE input_positions (
  seq BIGINT NOT NULL,
  partition_id INTEGER NOT NULL,
  source_id INTEGER NOT NULL,
  source_offset BIGINT NOT NULL,
  vehicle_key INTEGER NOT NULL,
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
  event_us BIGINT NOT NULL,
  ingest_us BIGINT NOT NULL,
  event_time_from_header BOOLEAN NOT NULL,
  inside_area BOOLEAN,
  origin_country VARCHAR,  -- aircraft (OpenSky; '' when blank); NULL when none
  last_contact BIGINT      -- aircraft: Unix seconds, as OpenSky gives them
);

-- Records the decoders refused (rule 1), as the decoders described them.
CREATE TABLE input_rejections (
  seq BIGINT NOT NULL,
  partition_id INTEGER NOT NULL,
  source_id INTEGER NOT NULL,
  source_offset BIGINT NOT NULL,
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  reason VARCHAR NOT NULL,
  event_us BIGINT,
  ingest_us BIGINT,
  detail VARCHAR NOT NULL
);

-- Source names (input files) by id; `name_rank` orders them by name, the tie-break of
-- rule 5 ("first in source order" = by source name, then offset).
CREATE TABLE sources (
  source_id INTEGER NOT NULL,
  name VARCHAR NOT NULL
);

-- The terminals of the GTFS route each feed route id resolves to (gtfs::RouteResolver
-- and gtfs::TerminalIndex, the same rules the stream's near_terminal uses). A route id
-- that resolves to no route has one row with resolved = false; one that resolves to a
-- route without terminals has one row with resolved = true and NULL coordinates. Empty
-- when no GTFS is given: near_terminal is then NULL everywhere.
CREATE TABLE route_terminals (
  route_id VARCHAR NOT NULL,
  resolved BOOLEAN NOT NULL,
  lat DOUBLE,
  lon DOUBLE
);
