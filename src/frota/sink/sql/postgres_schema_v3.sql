-- Migration to version 3: collector_polls, one row per request of a collector (docs/tables.md).
-- A live `frota run` writes the polls of the journal it follows; the members of a consumer
-- group write the poll messages of their partitions, in the epoch that commits their offset.
CREATE TABLE collector_polls (
  feed_id text NOT NULL,
  polled_at timestamp NOT NULL,
  attempt integer NOT NULL,
  http_status integer NOT NULL,
  failure text,
  bytes bigint NOT NULL,
  duration_ms double precision NOT NULL,
  "repeat" boolean NOT NULL,
  records bigint,
  body text,
  run_id text NOT NULL,
  PRIMARY KEY (feed_id, polled_at)
);
