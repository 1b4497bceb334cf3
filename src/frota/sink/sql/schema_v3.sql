-- Version 3: refused duplicates get a table of their own. A duplicate's detail is its
-- event time (model::DuplicateDetail), so in rejected_data it was a NULL VARCHAR on 96 %
-- of the rows of the simulated Rio day, and appending that column cost DuckDB as much as
-- its six other columns together (string storage, dictionary analysis and compression of
-- NULLs). duplicates_data holds those rows without it, and without their reason; the
-- `rejected` view (views_v1.sql) shows both tables as one. rejected_data keeps every
-- other refusal with its detail; rows written by version 2, duplicates with a NULL detail
-- among them, stay where they are and read the same.

CREATE TABLE duplicates_data (
  feed_id INTEGER NOT NULL,
  vehicle_id INTEGER NOT NULL,
  event_time TIMESTAMP NOT NULL,
  ingest_time TIMESTAMP,
  source INTEGER NOT NULL,
  source_offset BIGINT NOT NULL
);
