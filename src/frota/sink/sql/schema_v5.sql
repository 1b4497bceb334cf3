-- Version 5: collector_polls, one row per request of the collector whose poll journal a
-- live `frota run` follows (docs/tables.md). Written in the epoch transaction that
-- commits the journal's offset, so each poll lands exactly once.

CREATE TABLE collector_polls (
  feed_id VARCHAR NOT NULL,
  polled_at TIMESTAMP NOT NULL,
  attempt INTEGER NOT NULL,
  http_status INTEGER NOT NULL,
  failure VARCHAR,
  bytes BIGINT NOT NULL,
  duration_ms DOUBLE NOT NULL,
  "repeat" BOOLEAN NOT NULL,
  records BIGINT,
  body VARCHAR,
  run_id VARCHAR NOT NULL
);
