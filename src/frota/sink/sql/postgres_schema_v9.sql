-- Migration to version 9: duplicates counted, and the raw tables partitioned by day.
--
-- duplicate_counts, as in the DuckDB schema version 9: a record refused as a duplicate
-- (semantics.md section 2, rule 5) adds 1 to the count of its feed, vehicle and local
-- hour of event time instead of becoming a row of `rejected`; each state partition
-- upserts its own counts, which add (semantics.md section 5). Rows of `rejected` with the
-- reason duplicate written before this version stay until retention removes their day
-- (docs/tables.md).
--
-- positions, rejected, collector_polls and duplicate_counts become tables partitioned by
-- day (declarative range partitions: UTC days of event_time, of a refusal's event time
-- or else its ingest time, of polled_at; local dates of duplicate_counts), so that
-- retention (--retain-days) drops a day whole instead of deleting its rows one by one.
-- The sink creates each day's partition before the first row of that day arrives
-- (frota_day_partition, below), under an advisory lock so that members racing for one day
-- make it once. Every row of the unpartitioned tables moves into the partitions, in this
-- one transaction: the migration loses nothing or does nothing.

-- The partition of `parent` for `day` (named parent_YYYYMMDD), made if missing.
CREATE OR REPLACE FUNCTION frota_day_partition(parent regclass, day date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  name text := parent::text || '_' || to_char(day, 'YYYYMMDD');
BEGIN
  IF to_regclass(name) IS NULL THEN
    EXECUTE format('CREATE TABLE %I PARTITION OF %s FOR VALUES FROM (%L) TO (%L)', name,
                   parent, day, day + 1);
  END IF;
END $$;

-- Moves `old_table`'s rows into the partitions of `parent`, one per day of `day_sql` (an
-- expression over the old table's columns), then drops the old table.
CREATE OR REPLACE FUNCTION frota_fill_partitions(parent regclass, old_table regclass,
                                                 day_sql text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  day date;
BEGIN
  FOR day IN EXECUTE format('SELECT DISTINCT (%s)::date FROM %s', day_sql, old_table) LOOP
    PERFORM frota_day_partition(parent, day);
  END LOOP;
  EXECUTE format('INSERT INTO %s SELECT * FROM %s', parent, old_table);
  EXECUTE format('DROP TABLE %s', old_table);
END $$;

CREATE TABLE duplicate_counts (
  partition_id integer NOT NULL,
  feed_id text NOT NULL,
  vehicle_id text NOT NULL,
  local_date date NOT NULL,
  hour smallint NOT NULL,
  records bigint NOT NULL,
  PRIMARY KEY (partition_id, feed_id, vehicle_id, local_date, hour)
) PARTITION BY RANGE (local_date);

ALTER TABLE positions RENAME TO positions_unpartitioned;
ALTER INDEX positions_pkey RENAME TO positions_unpartitioned_pkey;
ALTER INDEX positions_event_time_brin RENAME TO positions_unpartitioned_brin;
CREATE TABLE positions (LIKE positions_unpartitioned INCLUDING DEFAULTS)
  PARTITION BY RANGE (event_time);
ALTER TABLE positions ADD PRIMARY KEY (feed_id, vehicle_id, event_time);
CREATE INDEX positions_event_time_brin ON positions USING brin (event_time);
SELECT frota_fill_partitions('positions', 'positions_unpartitioned', 'event_time');

-- A refusal has no natural key (one record may be refused twice); one without an event
-- time is placed by its ingest time.
ALTER TABLE rejected RENAME TO rejected_unpartitioned;
ALTER INDEX rejected_feed_reason_rare RENAME TO rejected_unpartitioned_feed_reason_rare;
CREATE TABLE rejected (LIKE rejected_unpartitioned INCLUDING DEFAULTS)
  PARTITION BY RANGE ((coalesce(event_time, ingest_time, timestamp '1970-01-01')));
CREATE INDEX rejected_feed_reason_rare ON rejected (feed_id, reason) WHERE reason <> 'duplicate';
SELECT frota_fill_partitions('rejected', 'rejected_unpartitioned',
                             'coalesce(event_time, ingest_time, timestamp ''1970-01-01'')');

ALTER TABLE collector_polls RENAME TO collector_polls_unpartitioned;
ALTER INDEX collector_polls_pkey RENAME TO collector_polls_unpartitioned_pkey;
CREATE TABLE collector_polls (LIKE collector_polls_unpartitioned INCLUDING DEFAULTS)
  PARTITION BY RANGE (polled_at);
ALTER TABLE collector_polls ADD PRIMARY KEY (feed_id, polled_at);
SELECT frota_fill_partitions('collector_polls', 'collector_polls_unpartitioned', 'polled_at');
