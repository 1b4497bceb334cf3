-- Version 2: the silver tables keep each string once. `strings` holds every distinct text
-- of an accepted or refused record (feed, vehicle, route, trip, date, time, source); the
-- rows in positions_data and rejected_data refer to those texts by id, and to their mode
-- and reason by the numbers of `modes` and `reject_reasons`. The views `positions` and
-- `rejected` (views_v1.sql) show them with the version 1 columns. A DuckDB append of text
-- pays for statistics, dictionary analysis and compression on every value: on the
-- simulated Rio day (12.2 M records, 7 string columns in positions and 5 in rejected) the
-- silver rows cost 3.5 times as much to write as text as they do as ids.
--
-- A refused duplicate's detail is NULL in rejected_data: it is the record's event time
-- (model::DuplicateDetail), which the `rejected` view writes out.

CREATE TABLE strings (id INTEGER PRIMARY KEY, text VARCHAR NOT NULL);
INSERT INTO strings VALUES (0, '');

-- The numbers are model::Mode's and model::RejectReason's; frota checks them on every
-- open and adds the names a newer binary knows (duckdb_sink.cc).
CREATE TABLE modes (id UTINYINT PRIMARY KEY, name VARCHAR NOT NULL UNIQUE);
INSERT INTO modes VALUES (0, 'bus'), (1, 'brt'), (2, 'rail'), (3, 'ferry'), (4, 'aircraft'),
  (5, 'other');
CREATE TABLE reject_reasons (id UTINYINT PRIMARY KEY, name VARCHAR NOT NULL UNIQUE);
INSERT INTO reject_reasons VALUES (0, 'missing_vehicle_id'), (1, 'missing_coordinates'),
  (2, 'latitude_out_of_range'), (3, 'longitude_out_of_range'), (4, 'null_island'),
  (5, 'missing_timestamp'), (6, 'timestamp_in_milliseconds'), (7, 'state_vector_too_short'),
  (8, 'malformed_record'), (9, 'bad_payload'), (10, 'future'), (11, 'stale'),
  (12, 'out_of_area'), (13, 'duplicate'), (14, 'jump'), (15, 'late');

CREATE TABLE positions_data (
  feed_id INTEGER NOT NULL,
  vehicle_id INTEGER NOT NULL,
  mode UTINYINT NOT NULL,
  route_id INTEGER NOT NULL,
  trip_id INTEGER NOT NULL,
  trip_start_date INTEGER NOT NULL,
  trip_start_time INTEGER NOT NULL,
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
  source INTEGER NOT NULL,
  source_offset BIGINT NOT NULL
);

CREATE TABLE rejected_data (
  feed_id INTEGER NOT NULL,
  vehicle_id INTEGER NOT NULL,
  reason UTINYINT NOT NULL,
  event_time TIMESTAMP,
  ingest_time TIMESTAMP,
  source INTEGER NOT NULL,
  source_offset BIGINT NOT NULL,
  detail VARCHAR  -- NULL: derived (a duplicate's event time)
);

-- The version 1 rows, as text, move in through the one statement that also loads a copy
-- of PostgreSQL's tables (silver_from_text.sql).
ALTER TABLE positions RENAME TO positions_text;
ALTER TABLE rejected RENAME TO rejected_text;
