-- Version 9: duplicate_counts. A record refused as a duplicate (semantics.md section 2,
-- rule 5) adds 1 to the count of its feed, vehicle and local hour of event time instead
-- of becoming a row of `rejected`: a feed that resends its last minute on every poll
-- repeats most of what it sends, and those rows were most of the database. Each state
-- partition writes its own counts (partition_id), emitted with the hour's other
-- aggregates; the view duplicate_count_totals sums them. Refusals stored before this
-- version (duplicates_data, and rejected_data rows of version 2 with a NULL detail) stay
-- rows of the `rejected` view until retention removes their day (docs/tables.md).

CREATE TABLE duplicate_counts (
  partition_id INTEGER NOT NULL,
  feed_id VARCHAR NOT NULL,
  vehicle_id VARCHAR NOT NULL,
  local_date DATE NOT NULL,
  hour TINYINT NOT NULL,
  records BIGINT NOT NULL
);
