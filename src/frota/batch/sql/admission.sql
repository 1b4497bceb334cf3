-- Rules 2-4 and the first, cheap half of rule 7 (semantics §2-3, docs/semantics-notes.md).
-- Reads input_positions; writes `candidates` (positions that passed rules 1-4),
-- `record_rejections` (refused by rules 2-4) and `late_suspects`.

-- Rules 2-4 are properties of one record, applied in rule order: the first that fails
-- is the reason (NULL: the record passes).
CREATE OR REPLACE MACRO record_reason(event_us, ingest_us, inside_area) AS
  CASE WHEN event_us > ingest_us + getvariable('future_tolerance_us') THEN 'future'
       WHEN ingest_us - event_us > getvariable('stale_limit_us') THEN 'stale'
       WHEN inside_area = false THEN 'out_of_area'
  END;

CREATE OR REPLACE TABLE candidates AS
SELECT seq, partition_id, event_us, ingest_us
FROM input_positions
WHERE record_reason(event_us, ingest_us, inside_area) IS NULL;

-- The rejected rows of rules 2-4, with the values the rule compared (the same text as
-- job::DescribeRecordRuleFailure).
CREATE OR REPLACE TABLE record_rejections AS
SELECT seq, feed_id, vehicle_id, reason, event_us, ingest_us, source_id, source_offset,
       CASE WHEN reason = 'out_of_area'
            THEN printf('lat=%.6f lon=%.6f', lat, lon)
            ELSE printf('lag_s=%.3f', (ingest_us - event_us)::DOUBLE / 1000000.0::DOUBLE)
       END AS detail
FROM (SELECT *, record_reason(event_us, ingest_us, inside_area) AS reason FROM input_positions)
WHERE reason IS NOT NULL;

-- Rule 7 is decided on arrival against the watermark W as it stands at that record.
-- W never exceeds (largest event time of the records that moved it so far) - max
-- lateness, and those records are candidates that arrived earlier. So a candidate whose
-- event time is above (largest candidate event time in its block of 1024 arrivals and
-- all earlier blocks) - max lateness is on time for sure, and only the others, the
-- suspects, need the exact watermark of late_round.sql. With ingest times that grow per
-- partition there are none. Setting the variable exact_watermark makes every candidate
-- a suspect (tests use it to exercise the exact path).
CREATE OR REPLACE TABLE late_suspects AS
WITH blocks AS (
  SELECT seq // 1024 AS block, max(event_us) AS block_max_event_us
  FROM candidates GROUP BY ALL
), bounds AS (
  SELECT block,
         max(block_max_event_us) OVER (ORDER BY block ROWS UNBOUNDED PRECEDING)
           - getvariable('max_lateness_us') AS watermark_bound_us
  FROM blocks
)
SELECT c.seq, c.event_us
FROM candidates c JOIN bounds b ON b.block = c.seq // 1024
WHERE c.event_us <= b.watermark_bound_us OR coalesce(getvariable('exact_watermark'), false);

-- Records found late so far; late_round.sql refines this set until it stops changing.
CREATE OR REPLACE TABLE late_records (seq BIGINT, watermark_us BIGINT);
